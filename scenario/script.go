// The Script scenario: an `ip -batch` script split into phases at its
// `# phase: NAME` comment lines, each phase one `ip -batch` process
// (iproute2's ip/ip.c batch()) on the simulated kernel.

package scenario

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// PhaseMarker begins the comment line that starts a phase of a Script:
// "# phase: NAME". ip's batch reads it as a comment.
const PhaseMarker = "# phase:"

// PhaseName returns the phase a line starts, and whether it is a phase
// marker: "# phase: NAME", spaces around it and NAME trimmed.
func PhaseName(line string) (name string, ok bool) {
	name, ok = strings.CutPrefix(strings.TrimSpace(line), PhaseMarker)
	return strings.TrimSpace(name), ok
}

// ScriptParams is a Script's script and machine.
type ScriptParams struct {
	Name   string // the script's name in error messages and the Report (default "script")
	Script string // `ip -batch` lines, with `# phase: NAME` lines between phases
	// Machine is the profile the run's costs come from: a shipped
	// profile's name or a profile file; "" is the development VM's.
	Machine string
	Tracer  sim.Tracer // receives the run's trace events; nil: no tracing
}

// ScriptPhase is one phase of a script: its name and its batch lines.
type ScriptPhase struct {
	Name  string
	Lines string
}

// SplitPhases splits a script at its `# phase: NAME` lines. Lines before
// the first marker are a phase named "setup" if they hold a command, and a
// script without markers is one phase named "script". A phase name is
// given once; an empty name is an error.
func SplitPhases(script string) ([]ScriptPhase, error) {
	var phases []ScriptPhase
	cur := &ScriptPhase{Name: "script"}
	hasCommand, marked := false, false
	seen := map[string]int{}
	flush := func() {
		if hasCommand || marked {
			phases = append(phases, *cur)
		}
	}
	sc := bufio.NewScanner(strings.NewReader(script))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	line := 0
	var b strings.Builder
	for sc.Scan() {
		line++
		text := sc.Text()
		if name, ok := PhaseName(text); ok {
			if name == "" {
				return nil, fmt.Errorf("line %d: %q names no phase", line, text)
			}
			if !marked && hasCommand {
				cur.Name = "setup" // the commands before the first marker
				seen["setup"] = 1
			}
			if prev, dup := seen[name]; dup {
				return nil, fmt.Errorf("line %d: phase %q again (it begins at line %d)", line, name, prev)
			}
			seen[name] = line
			cur.Lines = b.String()
			flush()
			b.Reset()
			cur, hasCommand, marked = &ScriptPhase{Name: name}, false, true
			continue
		}
		if t := strings.TrimSpace(text); t != "" && !strings.HasPrefix(t, "#") {
			hasCommand = true
		}
		b.WriteString(text)
		b.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	cur.Lines = b.String()
	flush()
	if len(phases) == 0 {
		return nil, fmt.Errorf("no command to run")
	}
	return phases, nil
}

// Script runs p.Script on a fresh kernel with configuration cfg, each
// phase as one `ip -batch -` process started from a shell, as `time ip
// -batch FILE` times it: the process's start (sim.IPExec), each line's
// parsing (sim.IPBatchLine) and its requests. A line that fails stops the
// run with ip's message.
func Script(cfg rtnl.Config, p ScriptParams) (*Report, error) {
	if p.Name == "" {
		p.Name = "script"
	}
	phases, err := SplitPhases(p.Script)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	prof, err := LoadMachine(p.Machine, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	k, w, err := newSeedKernel(cfg, prof.Costs, 0, p.Tracer)
	if err != nil {
		return nil, err
	}
	t := w.NewTask("ip")
	rc := newRecorder(p.Name, k, t)
	for _, ph := range phases {
		if err := rc.phase(ph.Name, func() error {
			var stdout, stderr strings.Builder
			ip := iproute.New(k, t)
			ip.Stdin, ip.Stdout, ip.Stderr = strings.NewReader(ph.Lines), &stdout, &stderr
			ip.ChargeProcess = true
			if st := ip.Main([]string{"-batch", "-"}); st != 0 {
				return fmt.Errorf("ip -batch exited with status %d: %s", st, strings.TrimSpace(stderr.String()))
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return rc.done(), nil
}
