// Golden files of generated scripts: rendering the command lines and
// their state snapshots, and parsing them back.

package kerneldiff

import (
	"fmt"
	"strings"

	"github.com/netsimlab/netsim/internal/golden"
)

// Render writes snapshots as a golden transcript: per step a header
//
//	## ip ARGS
//
// then its sections as "-- NAME --" followed by the text. The command's
// stdout, stderr and exit status are written when not empty (status when
// not 0); a dump only when it differs from the previous step's (the first
// step's against empty). A text without a final newline is marked as
// golden.Mark marks it. ParseGolden reads it back.
func Render(steps []Step, snaps []Snapshot) string {
	var b strings.Builder
	prev := map[string]string{}
	for i, s := range steps {
		if i >= len(snaps) {
			break
		}
		fmt.Fprintf(&b, "## %s\n", s.String())
		for _, sec := range snaps[i].Sections {
			switch sec.Name {
			case "stdout", "stderr":
				if sec.Text == "" {
					continue
				}
			case "exit status":
				if sec.Text == "0\n" {
					continue
				}
			default:
				if prev[sec.Name] == sec.Text {
					continue
				}
				prev[sec.Name] = sec.Text
			}
			golden.WriteSection(&b, sec.Name, golden.Mark(sec.Text))
		}
	}
	return b.String()
}

// ParseGolden reads a transcript written by Render back into its steps'
// command lines and snapshots; the section names and their order are
// those of layout, a snapshot of the same script (from RunNetsim), so that
// omitted sections come back as Render left them out.
func ParseGolden(text string, layout []Snapshot) ([]string, []Snapshot, error) {
	type block struct {
		cmd  string
		secs map[string]string
	}
	var blocks []*block
	for i, step := range strings.SplitAfter(text, "\n## ") {
		if i == 0 {
			var ok bool
			if step, ok = strings.CutPrefix(step, "## "); !ok {
				if strings.TrimSpace(step) == "" {
					continue
				}
				return nil, nil, fmt.Errorf("golden: text before the first step: %q", step)
			}
		}
		if s, ok := strings.CutSuffix(step, "\n## "); ok {
			step = s + "\n"
		}
		cmd, body, _ := strings.Cut(step, "\n")
		f := golden.Parse(body)
		if strings.TrimSpace(f.Comment) != "" {
			return nil, nil, fmt.Errorf("golden: text outside a section: %q", f.Comment)
		}
		bl := &block{cmd: cmd, secs: map[string]string{}}
		for _, sec := range f.Sections {
			bl.secs[sec.Name] = golden.Unmark(sec.Text)
		}
		blocks = append(blocks, bl)
	}
	if len(blocks) != len(layout) {
		return nil, nil, fmt.Errorf("golden: %d steps, the script has %d", len(blocks), len(layout))
	}
	cmds := make([]string, len(blocks))
	snaps := make([]Snapshot, len(blocks))
	prev := map[string]string{}
	for i, bl := range blocks {
		cmds[i] = bl.cmd
		for _, sec := range layout[i].Sections {
			t, ok := bl.secs[sec.Name]
			switch sec.Name {
			case "stdout", "stderr":
			case "exit status":
				if !ok {
					t = "0\n"
				}
			default:
				if !ok {
					t = prev[sec.Name]
				}
				prev[sec.Name] = t
			}
			snaps[i].Sections = append(snaps[i].Sections, Section{sec.Name, t})
		}
	}
	return cmds, snaps, nil
}
