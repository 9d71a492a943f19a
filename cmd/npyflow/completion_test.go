package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/npyflow/npyflow/pipeline"
)

// TestCompletionBash: the bash script offers every command, every flag
// generated from the option declarations for convert, and every flag
// each other command prints in its -h; zsh and fish scripts are produced
// from the same list, and an unknown shell is a usage error.
func TestCompletionBash(t *testing.T) {
	code, script := runCLI(t, "completion", "bash")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, script)
	}
	for name := range commands {
		if !strings.Contains(script, "\n        "+name+") flags=") {
			t.Errorf("no case for command %s", name)
		}
	}
	line := func(cmd string) string {
		m := regexp.MustCompile(`(?m)^        ` + cmd + `\) flags="([^"]*)"`).FindStringSubmatch(script)
		if m == nil {
			t.Fatalf("no flags line for %s", cmd)
		}
		return " " + m[1] + " "
	}
	conv := line("convert")
	flags := pipeline.ConvertFlags()
	if len(flags) < 10 {
		t.Fatalf("only %d convert flags", len(flags))
	}
	for _, f := range append(flags, pipeline.Flag{Name: "progress"}, pipeline.Flag{Name: "threads"}) {
		if !strings.Contains(conv, " --"+f.Name+" ") {
			t.Errorf("convert flags lack --%s: %s", f.Name, conv)
		}
	}
	for cmd, want := range map[string][]string{
		"run":      {"--workers", "--threads", "--sync", "--no-commit", "--plan", "--shard", "--resume", "--set"},
		"inspect":  {"--json", "--columns", "--decimal", "--fill", "--validity"},
		"validate": {"--set", "--static"},
		"commit":   {"--plan", "--state"},
	} {
		got := line(cmd)
		for _, w := range want {
			if !strings.Contains(got, " "+w+" ") {
				t.Errorf("%s flags lack %s: %s", cmd, w, got)
			}
		}
	}
	for _, sh := range []string{"zsh", "fish"} {
		code, s := runCLI(t, "completion", sh)
		if code != 0 || !strings.Contains(s, "compression") || !strings.Contains(s, "row-group-rows") {
			t.Errorf("%s: exit %d, script lacks convert flags:\n%.300s", sh, code, s)
		}
	}
	if code, _ := runCLI(t, "completion", "tcsh"); code != 2 {
		t.Errorf("unknown shell: exit %d, want 2", code)
	}
}
