// Package atomicfile writes a file all at once or not at all: [Create]
// opens a temporary file next to the destination, and [File.Commit]
// flushes it to disk (fsync) and renames it over the destination, so a
// reader of the destination sees either the old file or the complete new
// one, never a partial one. [File.Abort] removes the temporary file.
//
// Temporary names are recognizable: ".NAME.npyflow-tmp-PID-RANDOM", next
// to NAME, where PID is the writing process. A process killed before it
// could commit or abort (SIGKILL, power loss) leaves its temporary file
// behind; [Create] removes such stale files of the same destination
// ([CleanStale]) whose process is gone (kill(pid, 0) fails with ESRCH).
// Files of live processes, of other destinations and anything not named
// this way are left alone. A stale file whose PID has since been reused
// by another process is kept until that process exits too.
//
// Limits: the directory must allow creating and renaming files; the
// rename is atomic only within one file system (the temporary file is in
// the destination's directory, so it always is). The new file's mode is
// 0644 less the umask, whatever the mode of the file it replaces. Stale
// files are detected on Unix only (elsewhere none is ever removed).
package atomicfile
