// `netsim machines` and `netsim machine`: the shipped machine profiles and
// one profile resolved, every cost with its source; and the -machine flag
// the commands that run a kernel take.

package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/netsimlab/netsim/machine"
)

// machineUsage is the -machine flag's help.
const machineUsage = "machine profile NAME|FILE: a shipped profile (netsim machines) or a profile file"

// runMachines is `netsim machines`: the shipped profiles and their titles.
func runMachines(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("machines", flag.ContinueOnError)
	fs.SetOutput(out)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("machines: unexpected argument %q", fs.Arg(0))
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, name := range machine.Names() {
		p, err := machine.Load(name)
		if err != nil {
			return fmt.Errorf("machines: %w", err)
		}
		fmt.Fprintf(tw, "%s\t%s\n", name, p.Title)
	}
	return tw.Flush()
}

// runMachine is `netsim machine NAME|FILE`: the resolved profile.
func runMachine(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("machine", flag.ContinueOnError)
	fs.SetOutput(out)
	md := fs.Bool("md", false, "print markdown tables (docs/cost-model.md) instead of the profile format")
	own := fs.Bool("own", false, "with -md, only what the profile sets itself, not what it takes from its base")
	fs.Usage = func() {
		fmt.Fprint(out, "usage: netsim machine [-md [-own]] NAME|FILE\n\n"+
			"Prints the profile NAME (a shipped one: netsim machines) or the profile\n"+
			"file FILE, resolved: every cost with its value and its source.\n\n")
		fs.PrintDefaults()
		fmt.Fprint(out, "\n"+machine.Format)
	}
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("machine: one NAME or FILE expected (%s)", strings.Join(machine.Names(), ", "))
	}
	if *own && !*md {
		return fmt.Errorf("machine: -own goes with -md")
	}
	p, err := machine.Load(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("machine: %w", err)
	}
	if *md {
		return p.WriteMarkdown(out, *own)
	}
	_, err = p.WriteTo(out)
	return err
}
