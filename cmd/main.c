/* csched: the command line entry point; the program is cmd_run (cmd/cmd.h, cmd/app.c). */
#include "cmd/cmd.h"

int main(int argc, char **argv)
{
	return cmd_run(argc, argv);
}
