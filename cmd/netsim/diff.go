// `netsim diff`: a script run step by step on netsim and in a private
// network namespace of the real kernel, and the first difference.

package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/netsimlab/netsim/internal/kerneldiff"
)

const diffUsage = `usage: netsim diff [-hash-seed N] FILE
       netsim diff -gen SEED [-steps N] [-hash-seed N] [-print]

Runs an ip script (one ip command per line, with or without the leading
"ip"; # comments) step by step in a private network namespace of the real
kernel (unshare -n -m; needs root and iproute2 6.1) and in netsim, and
compares after every step the command's output, error and exit status and
the dumps: ip -4 route show table all, ip -4 nexthop show, ip -4 rule show
(and ip -6 rule show), ip -4 addr show, ip -4 maddr show, for a script
naming IPv6 and a generated sequence ip -6 route show table all and
/proc/net/rt6_stats, for a generated sequence ip -d link show, and
/proc/net/fib_triestat (remaining lifetimes and route expiries, timers,
queue counts and rt6_stats's allocation counters hidden on both sides). Prints the first difference, with the script line
that caused it and a diff (- real kernel, + netsim), or "no difference
after N steps". Exit status: 0 no difference, 1 a difference, 2 the real
kernel is unavailable or the script cannot be read.

  -gen SEED   compare a generated sequence instead of FILE
  -steps N    its number of steps (default 30)
  -print      print the generated script and exit
  -hash-seed N  both sides' net.ipv4.fib_multipath_hash_seed, which picks
              the path of a multipath route; N must not be 0 (default:
              the seed the golden transcripts use, or for -gen the
              sequence's own, as the generated tests use)
`

// diffMain is `netsim diff`: it returns the exit status.
func diffMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, diffUsage) }
	seed := fs.Uint64("gen", 0, "compare the generated sequence of this seed (not 0)")
	n := fs.Int("steps", 30, "steps of the generated sequence")
	print := fs.Bool("print", false, "print the generated script and exit")
	hashSeed := fs.Uint("hash-seed", 0, "both sides' multipath hash seed (default: see usage)")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	hashSet := false
	fs.Visit(func(f *flag.Flag) { hashSet = hashSet || f.Name == "hash-seed" })
	if hashSet && (*hashSeed == 0 || *hashSeed > 1<<32-1) {
		fmt.Fprintln(stderr, "netsim diff: -hash-seed must be between 1 and 4294967295")
		return 2
	}
	hs := uint32(*hashSeed)
	var steps []kerneldiff.Step
	switch {
	case *seed != 0 && fs.NArg() == 0:
		if *n < 1 || *n > 100000 {
			fmt.Fprintln(stderr, "netsim diff: -steps must be between 1 and 100000")
			return 2
		}
		steps = kerneldiff.Generate(*seed, *n)
		if hs == 0 {
			hs = kerneldiff.GeneratedHashSeed(*seed)
		}
		if *print {
			fmt.Fprint(stdout, kerneldiff.Script(steps))
			return 0
		}
	case *seed == 0 && fs.NArg() == 1:
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			fmt.Fprintln(stderr, "netsim diff:", err)
			return 2
		}
		steps, err = kerneldiff.Parse(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "netsim diff: %s: %v\n", fs.Arg(0), err)
			return 2
		}
	default:
		fmt.Fprint(stderr, diffUsage)
		return 2
	}
	if err := kerneldiff.Available(); err != nil {
		fmt.Fprintf(stderr, "netsim diff: the real kernel is unavailable: %v\n", err)
		return 2
	}
	if hs == 0 {
		hs = kerneldiff.DefaultHashSeed
	}
	d, err := kerneldiff.Run(steps, hs)
	if err != nil {
		fmt.Fprintln(stderr, "netsim diff: the real kernel:", err)
		return 2
	}
	if d != nil {
		fmt.Fprint(stdout, strings.TrimSuffix(d.String(), "\n")+"\n")
		return 1
	}
	fmt.Fprintf(stdout, "no difference after %d steps\n", len(steps))
	return 0
}
