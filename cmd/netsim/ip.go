package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
)

const ipUsage = `usage: netsim ip [-before|-after] [-time] [-triestat] [IP OPTIONS] OBJECT COMMAND...
       netsim ip [-before|-after] [-time] [-triestat] [-force] [-n NETNS] -batch FILE|-

Runs ip commands in a fresh simulated kernel and prints what ip prints;
the exit status is ip's.

  -before     the kernel before the seed patches
  -after      the kernel after them (the default)
  -time       after each command, print its virtual time and how long it
              held RTNL; at the end, the totals and the real time
  -triestat   after the run, print /proc/net/fib_triestat (of NETNS with -n)

IP OPTIONS are ip's own: -4, -6, -force, -batch FILE, -n[etns] NETNS, ...
`

// ipMain is `netsim ip`: it returns the exit status.
func ipMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg := rtnl.After
	showTime, trieStat := false, false
	var ipArgs []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' {
			ipArgs = append(ipArgs, args[i:]...)
			break
		}
		switch strings.TrimPrefix(a, "-") {
		case "-before", "before":
			cfg = rtnl.Before
		case "-after", "after":
			cfg = rtnl.After
		case "-time", "time":
			showTime = true
		case "-triestat", "triestat":
			trieStat = true
		case "-help", "help", "h":
			fmt.Fprint(stdout, ipUsage)
			return 0
		default:
			ipArgs = append(ipArgs, a)
			// ip's options that take a value.
			if (matchesOpt(a, "-batch") || matchesOpt(a, "-netns") || matchesOpt(a, "-family") ||
				matchesOpt(a, "-loops")) && i+1 < len(args) {
				i++
				ipArgs = append(ipArgs, args[i])
			}
		}
	}
	// Counted walks change wall time only: behaviour, counters and virtual
	// time are those of the real list walks (rtnl.Config.CountedWalks).
	cfg.CountedWalks = true
	// A run builds its kernel once and keeps it to the end: collecting
	// less often saves time and costs little memory.
	debug.SetGCPercent(400)
	k := rtnl.MustNewKernel(cfg)
	t := k.World().NewTask("ip")
	ip := iproute.New(k, t)
	ip.Stdin, ip.Stdout, ip.Stderr = stdin, stdout, stderr

	var (
		cmds         int
		start        = t.Now()
		realStart    = time.Now()
		rtnlHold0    = k.RTNL().Stats().HoldTotal
		last         = t.Now()
		lastHold     = rtnlHold0
		lastWait     = k.RTNL().Stats().WaitTotal
		rtnlWaitTot0 = lastWait
	)
	if showTime {
		ip.AfterCommand = func(words []string, line int, err error) {
			cmds++
			st := k.RTNL().Stats()
			now := t.Now()
			where := ""
			if line > 0 {
				where = fmt.Sprintf("line %d: ", line)
			}
			fmt.Fprintf(stdout, "# %s%v virtual, RTNL held %v, waited %v: %s\n", where,
				now.Sub(last), st.HoldTotal-lastHold, st.WaitTotal-lastWait, strings.Join(words, " "))
			last, lastHold, lastWait = now, st.HoldTotal, st.WaitTotal
		}
	}
	status := ip.Main(ipArgs)
	if showTime {
		st := k.RTNL().Stats()
		fmt.Fprintf(stdout, "# total: %d commands, %v virtual, RTNL held %v (longest %v), waited %v; %v real\n",
			cmds, t.Now().Sub(start), st.HoldTotal-rtnlHold0, st.HoldMax, st.WaitTotal-rtnlWaitTot0,
			time.Since(realStart).Round(time.Microsecond))
	}
	if trieStat {
		n := k.InitNet()
		for i := 0; i+1 < len(ipArgs) && strings.HasPrefix(ipArgs[i], "-"); i++ {
			if matchesOpt(ipArgs[i], "-netns") {
				if nn := k.Net(ipArgs[i+1]); nn != nil {
					n = nn
				}
			}
		}
		s, err := n.Handle(k.World().NewTask("cat")).TrieStat()
		if err != nil {
			fmt.Fprintln(stderr, "netsim ip: fib_triestat:", err)
			return 1
		}
		if s != "" && !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		fmt.Fprint(stdout, s)
	}
	return status
}

// matchesOpt is ip's prefix match of an option ("-b" is "-batch").
func matchesOpt(word, opt string) bool {
	if strings.HasPrefix(word, "--") {
		word = word[1:]
	}
	return len(word) > 1 && strings.HasPrefix(opt, word)
}
