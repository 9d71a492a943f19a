// Command npyflow converts NumPy .npy/.npz data, MATLAB MAT-files (v7.3,
// v7, v6) and HDF5 files to and from Parquet and Arrow IPC (files and
// streams), inspects them, and runs conversion jobs described in YAML.
//
// The command is a shell over package pipeline: it parses flags (convert's
// are generated from the formats' option declarations), prints help,
// renders progress bars, handles signals and maps errors to exit codes;
// reading and writing files is the library's (pipeline.Convert,
// pipeline.Inspect, Plan.Run). `npyflow completion bash|zsh|fish` prints
// a completion script generated from the same declarations.
//
// Exit codes: 0 success, 1 runtime failure (bad input file, I/O error,
// interrupted), 2 invalid job file or usage.
//
// A panic in npyflow is a bug, never the data's fault: the command
// reports it as one line starting "internal error" (exit 1) rather than
// a crash or a "malformed data" message; with NPYFLOW_DEBUG=1 in the
// environment the stack follows.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/npyflow/npyflow/pipeline"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError marks errors that are the user's invocation or job file, not
// the data: they exit with exitUsage.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// helpError is a command's help text, asked for with -h: printed on
// stderr with exit code 0.
type helpError struct{ text string }

func (e helpError) Error() string { return e.text }

// commandLine is how a command is called, from its summary when that
// shows it ("run job.yaml [--set k=v] ..."), else "NAME [flags]".
func commandLine(name string) string {
	s := commands[name].summary
	if i := strings.Index(s, ": npyflow "+name); i >= 0 {
		return strings.TrimPrefix(s[i+2:], "npyflow ")
	}
	return name + " [flags]"
}

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// noArgs parses the flags of the command name, which takes no arguments
// and has only -h.
func noArgs(e *env, name string) error {
	args, err := parseFlags(flag.NewFlagSet(name, flag.ContinueOnError), e.args)
	if err == nil && len(args) != 0 {
		err = usagef("%s takes no arguments", name)
	}
	return err
}

// env is what a command may touch: its arguments and streams.
type env struct {
	ctx    context.Context
	args   []string
	stdout io.Writer
	stderr io.Writer
}

// warn prints a warning of the library (a skipped dataset, a renamed
// MATLAB name) on the command's standard error.
func (e *env) warn(msg string) { fmt.Fprintf(e.stderr, "npyflow: warning: %s\n", msg) }

type command struct {
	summary string
	run     func(e *env) error
}

// commands is filled by each command's file in its init function.
var commands = map[string]command{}

func register(name, summary string, run func(e *env) error) {
	commands[name] = command{summary: summary, run: run}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runMain(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func runMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 2 && args[0] == "help" && commands[args[1]].run != nil {
		args = []string{args[1], "-h"} // "npyflow help convert"
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "npyflow: unknown command %q\n", args[0])
		printUsage(stderr)
		return exitUsage
	}
	err := runCommand(c, &env{ctx: ctx, args: args[1:], stdout: stdout, stderr: stderr})
	if err == nil {
		return exitOK
	}
	var he helpError
	if errors.As(err, &he) {
		fmt.Fprint(stderr, he.text)
		return exitOK
	}
	var ie *pipeline.InternalError
	if errors.As(err, &ie) {
		reportInternal(stderr, args[0], ie)
		return exitFailure
	}
	// One line, without the library packages' prefixes, for every command.
	fmt.Fprintf(stderr, "npyflow %s: %v\n", args[0], trimPrefix(err))
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailure
}

// runCommand runs c, turning a panic (a bug in npyflow, never expected on
// any input) into an internal error (see reportInternal) instead of a
// stack trace with the usage exit code. Panics in the goroutines a run
// starts come back from the library as *pipeline.InternalError too.
func runCommand(c command, e *env) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &pipeline.InternalError{Value: p, Stack: debug.Stack()}
		}
	}()
	return c.run(e)
}

// debugEnv is the environment variable that makes an internal error
// print its stack.
const debugEnv = "NPYFLOW_DEBUG"

// reportInternal prints an internal error: one line starting "internal
// error", and the stack if NPYFLOW_DEBUG is set (not "" or "0").
func reportInternal(w io.Writer, cmd string, ie *pipeline.InternalError) {
	if v := os.Getenv(debugEnv); v != "" && v != "0" {
		fmt.Fprintf(w, "internal error in npyflow %s (please report it): %v\n%s", cmd, ie.Value, ie.Stack)
		return
	}
	fmt.Fprintf(w, "internal error in npyflow %s (please report it): %v (%s=1 prints the stack)\n", cmd, ie.Value, debugEnv)
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: npyflow <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range slices.Sorted(maps.Keys(commands)) {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nexit codes: 0 success, 1 runtime failure, 2 invalid job or usage")
}

// trimPrefix keeps the one-line error readable: package prefixes like
// "parquetio: " say nothing to a user. A prefix is dropped where a part of
// the message starts (at the start or after ": "), not inside a name.
// The result still wraps err.
func trimPrefix(err error) error {
	msg := err.Error()
	for _, p := range []string{"parquetio: ", "npyio: ", "arrowconv: ", "arrow/ipc: "} {
		msg = strings.TrimPrefix(msg, p)
		msg = strings.ReplaceAll(msg, ": "+p, ": ")
	}
	return &plainError{msg: msg, err: err}
}

// plainError is err with a reworded message.
type plainError struct {
	msg string
	err error
}

func (e *plainError) Error() string { return e.msg }
func (e *plainError) Unwrap() error { return e.err }
