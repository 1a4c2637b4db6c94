// Reads one quantity string per line on stdin; prints "ok VALUE MILLI" or "err MESSAGE".
package main

import (
	"bufio"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/api/resource"
)

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for sc.Scan() {
		q, err := resource.ParseQuantity(sc.Text())
		if err != nil {
			fmt.Fprintf(w, "err %v\n", err)
			continue
		}
		fmt.Fprintf(w, "ok %d %d\n", q.Value(), q.MilliValue())
	}
}
