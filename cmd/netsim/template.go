// Script templates of `netsim sweep -script`: a bash script that prints
// `ip -batch` lines, as the seeds' one-liners printed examples/seed00*.ip,
// run by bash with the sweep's variables in its environment.

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"

	"github.com/netsimlab/netsim/scenario"
)

// sweepVar is one -var NAME=V1,V2,...: a template variable and its values.
type sweepVar struct {
	Name   string
	Values []int
}

// varName is a shell variable's name.
var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// parseSweepVar parses -var's NAME=V1,V2,...: a shell variable's name and
// positive integers, distinct.
func parseSweepVar(s string) (sweepVar, error) {
	name, list, ok := strings.Cut(s, "=")
	if !ok {
		return sweepVar{}, fmt.Errorf("-var %q: want NAME=V1,V2,... (e.g. N=1000,2000,4000)", s)
	}
	name = strings.TrimSpace(name)
	if !varName.MatchString(name) {
		return sweepVar{}, fmt.Errorf("-var %q: %q is not a shell variable name", s, name)
	}
	v := sweepVar{Name: name}
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return sweepVar{}, fmt.Errorf("-var %s: %q is not a positive size", name, f)
		}
		for _, m := range v.Values {
			if m == n {
				return sweepVar{}, fmt.Errorf("-var %s: %d is given twice", name, n)
			}
		}
		v.Values = append(v.Values, n)
	}
	return v, nil
}

// usesVar reports whether a template refers to the variable name: $NAME
// (not followed by more of a name) or ${NAME...}.
func usesVar(template, name string) bool {
	return regexp.MustCompile(`\$(` + name + `\b|\{` + name + `[}:#%/^,\[-])`).MatchString(template)
}

// markPhases makes each `# phase: NAME` line of a template print itself:
// bash skips comments, and the batch it prints must keep the marker.
func markPhases(template string) string {
	lines := strings.Split(template, "\n")
	for i, l := range lines {
		if name, ok := scenario.PhaseName(l); ok {
			lines[i] = "printf '%s\\n' " + shellQuote(scenario.PhaseMarker+" "+name)
		}
	}
	return strings.Join(lines, "\n")
}

// shellQuote quotes s for bash as one word.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// expandTemplate runs template (named file in messages) with bash, the
// variables vars in its environment, and returns what it prints: the
// `ip -batch` lines. Anything bash prints on stderr is an error, as is a
// status other than 0.
func expandTemplate(file, template string, vars []sweepVar, at []int) (string, error) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return "", fmt.Errorf("%s: expanding a template needs bash: %w", file, err)
	}
	cmd := exec.Command(bash, "--noprofile", "--norc", "-s")
	cmd.Args[0] = "bash" // its messages begin "bash: line L:"
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
	var set []string
	for i, v := range vars {
		cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", v.Name, at[i]))
		set = append(set, fmt.Sprintf("%s=%d", v.Name, at[i]))
	}
	cmd.Stdin = strings.NewReader(markPhases(template))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		return "", fmt.Errorf("%s with %s: %s", file, strings.Join(set, " "), msg)
	}
	if err != nil {
		return "", fmt.Errorf("%s with %s: bash: %w", file, strings.Join(set, " "), err)
	}
	return stdout.String(), nil
}
