/* The csched program as a library: cmd/main.c only calls cmd_run, so tests link the command line
 * code (csched_cmd) instead of compiling cmd/ sources into themselves. */
#ifndef CSCHED_CMD_H
#define CSCHED_CMD_H

/* Runs csched with argv[0..argc): parses the flags (cmd/flags.h), builds the configuration, starts
 * the scheduler and serves until SIGTERM or SIGINT. Returns the exit status: 0 after a clean
 * shutdown, --help, --version or --write-config-to, 1 on any error (printed on stderr). Exits the
 * process with 1 at once when leadership is lost, or when a shutdown outlasts its grace period.
 * Call it once, from main, before any other thread exists: it blocks SIGTERM and SIGINT. */
int cmd_run(int argc, char **argv);

/* `csched explain NAMESPACE/NAME [flags]` (cmd/explain.c; cmd_run calls it when argv[1] is
 * "explain"): argv[0] is "explain", prog the program name for messages. Prints the explanation on
 * stdout and returns 0, or prints the error on stderr and returns 1. Writes nothing to the cluster. */
int cmd_explain(int argc, char **argv, const char *prog);

/* `csched simulate --dump FILE [flags]` (cmd/simulate.c; argv[1] "simulate"): places pods on a
 * cluster dump with the scheduler's own algorithm and prints where; 0, or 1 with the error on
 * stderr. Contacts no server. */
int cmd_simulate(int argc, char **argv, const char *prog);

/* `csched devices [--class C] [--selector EXPR] [--node N]` (cmd/devices.c; argv[1] "devices"):
 * lists the cluster's DRA devices, their allocations and whether each matches; 0, or 1 with the
 * error on stderr. Writes nothing to the cluster. */
int cmd_devices(int argc, char **argv, const char *prog);

#endif
