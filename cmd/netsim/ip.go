// `netsim ip`: ip's command line (iproute2's ip/ip.c: options, -batch,
// -netns) run on the simulated kernel, with netsim's own options for
// virtual times and JSON records.

package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/machine"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

const ipUsage = `usage: netsim ip [NETSIM OPTIONS] [IP OPTIONS] OBJECT COMMAND...
       netsim ip [NETSIM OPTIONS] [IP OPTIONS] -batch FILE|-

Runs ip commands in a fresh simulated kernel and prints what ip prints;
the exit status is ip's.

NETSIM OPTIONS (none is a prefix of an option of ip's, so both mix freely):
  -before            the kernel before the seed patches
  -after             the kernel after them (the default)
  -config FILE       the kernel's behaviour switches from FILE (below)
  -machine NAME|FILE the machine profile the virtual times come from: a
                     shipped one (netsim machines) or a profile file;
                     default devvm, the development VM
  -netsim-time       after each command's output, print a "# " line with its
                     virtual time and how long it held RTNL; at the end, the
                     totals and the real time. Virtual time counts what the
                     ip process costs in user space, as the validation
                     charges it: its start (IPExec, and NetnsExec for -n
                     NETNS, in the first command's time) and each batch
                     line's parsing (IPBatchLine)
  -netsim-json       print -netsim-time's figures as JSON lines (implies it);
                     with ip's -json, stdout is a stream of JSON values
  -triestat          after the run, print /proc/net/fib_triestat (of NETNS with -n)
  -rt6stats          after the run, print /proc/net/rt6_stats (of NETNS with -n)
  -trace FILE        write a Chrome/Perfetto trace of virtual time to FILE
  -trace-events N    keep at most N events in the trace (default 200000)
  -pprof FILE        write a pprof profile of virtual time and counted work
                     by modelled kernel call stack to FILE (go tool pprof)
  -help              print this help

IP OPTIONS are ip's own, as iproute2 6.1 reads them: -4, -6, -force, -batch
FILE, -n[etns] NETNS, -j[son], -p[retty], -br[ief], -o[neline], -d[etails],
-s[tatistics] (twice for more), -t[imestamp], -h[uman], ... (ip's -json is
its JSON output; netsim's timing lines are -netsim-json).

` + configHelp

// ipMain is `netsim ip`: it returns the exit status.
func ipMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg := rtnl.After
	showTime, trieStat, rt6Stats, asJSON := false, false, false, false
	var (
		ipArgs                []string
		configFile, traceFile string
		pprofFile             string
		machineName           string
		preset                string
		traceEvents           = defaultTraceEvents
	)
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "netsim ip: "+format+"\n", a...)
		return 1
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' {
			ipArgs = append(ipArgs, args[i:]...)
			break
		}
		opt := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		value := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		switch opt {
		case "before", "after":
			if preset != "" && preset != opt {
				return fail("-before and -after exclude each other")
			}
			preset = opt
			cfg = map[string]rtnl.Config{"before": rtnl.Before, "after": rtnl.After}[opt]
		case "config":
			v, ok := value()
			if !ok {
				return fail("-config needs a FILE")
			}
			configFile = v
		case "machine":
			v, ok := value()
			if !ok {
				return fail("-machine needs a NAME or FILE")
			}
			machineName = v
		case "trace":
			v, ok := value()
			if !ok {
				return fail("-trace needs a FILE")
			}
			traceFile = v
		case "pprof":
			v, ok := value()
			if !ok {
				return fail("-pprof needs a FILE")
			}
			pprofFile = v
		case "trace-events":
			v, ok := value()
			n, err := strconv.Atoi(v)
			if !ok || err != nil || n < 1 {
				return fail("-trace-events needs a positive number, not %q", v)
			}
			traceEvents = n
		case "netsim-json":
			asJSON, showTime = true, true
		case "netsim-time":
			showTime = true
		case "triestat":
			trieStat = true
		case "rt6stats":
			rt6Stats = true
		case "help":
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
	if configFile != "" {
		if preset != "" {
			return fail("-config and -%s exclude each other", preset)
		}
		c, err := readConfig(configFile)
		if err != nil {
			return fail("-config: %v", err)
		}
		cfg = c
	}
	prof, err := machine.Load(cmp.Or(machineName, "devvm"))
	if err != nil {
		return fail("-machine: %v", err)
	}
	tr, err := openTrace(traceFile, traceEvents, pprofFile)
	if err != nil {
		return fail("%v", err)
	}
	// Counted walks change wall time only: behaviour, counters and virtual
	// time are those of the real walks (rtnl.Config.CountedWalks).
	cfg.CountedWalks = true
	// A run builds its kernel once and keeps it to the end: collecting
	// less often saves time and costs little memory.
	debug.SetGCPercent(400)
	w, err := sim.NewWorld(sim.Options{Costs: &prof.Costs, Tracer: tr.Proc("ip " + cfg.String())})
	if err != nil {
		return fail("%v", err)
	}
	k, err := rtnl.NewKernelIn(w, cfg)
	if err != nil {
		return fail("%v", err)
	}
	t := w.NewTask("ip")
	ip := iproute.New(k, t)
	ip.Stdin, ip.Stdout, ip.Stderr = stdin, stdout, stderr
	ip.ChargeProcess = true

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
			if asJSON {
				writeJSONLine(stdout, ipTimeRecord{Line: line, Command: strings.Join(words, " "), Failed: err != nil,
					VirtualS: now.Sub(last).Seconds(), RTNLHeldS: (st.HoldTotal - lastHold).Seconds(), RTNLWaitedS: (st.WaitTotal - lastWait).Seconds()})
			} else {
				where := ""
				if line > 0 {
					where = fmt.Sprintf("line %d: ", line)
				}
				fmt.Fprintf(stdout, "# %s%v virtual, RTNL held %v, waited %v: %s\n", where,
					now.Sub(last), st.HoldTotal-lastHold, st.WaitTotal-lastWait, strings.Join(words, " "))
			}
			last, lastHold, lastWait = now, st.HoldTotal, st.WaitTotal
		}
	}
	status := ip.Main(ipArgs)
	if err := tr.Close(stderr); err != nil {
		fmt.Fprintln(stderr, "netsim ip:", err)
		status = max(status, 1)
	}
	if asJSON {
		st := k.RTNL().Stats()
		writeJSONLine(stdout, ipTotalRecord{Total: true, Commands: cmds, Status: status, VirtualS: t.Now().Sub(start).Seconds(),
			RTNLHeldS: (st.HoldTotal - rtnlHold0).Seconds(), RTNLHoldMaxS: st.HoldMax.Seconds(),
			RTNLWaitedS: (st.WaitTotal - rtnlWaitTot0).Seconds(), RealS: time.Since(realStart).Seconds()})
	} else if showTime {
		st := k.RTNL().Stats()
		fmt.Fprintf(stdout, "# total: %d commands, %v virtual, RTNL held %v (longest %v), waited %v; %v real\n",
			cmds, t.Now().Sub(start), st.HoldTotal-rtnlHold0, st.HoldMax, st.WaitTotal-rtnlWaitTot0,
			time.Since(realStart).Round(time.Microsecond))
	}
	if trieStat || rt6Stats {
		n := k.InitNet()
		for i := 0; i+1 < len(ipArgs) && strings.HasPrefix(ipArgs[i], "-"); i++ {
			if matchesOpt(ipArgs[i], "-netns") {
				if nn := k.Net(ipArgs[i+1]); nn != nil {
					n = nn
				}
			}
		}
		h := n.Handle(k.World().NewTask("cat"))
		defer h.Close()
		for _, f := range []struct {
			on   bool
			name string
			get  func() (string, error)
		}{{trieStat, "fib_triestat", h.TrieStat}, {rt6Stats, "rt6_stats", h.RT6Stats}} {
			if !f.on {
				continue
			}
			s, err := f.get()
			if err != nil {
				fmt.Fprintf(stderr, "netsim ip: %s: %v\n", f.name, err)
				return 1
			}
			if s != "" && !strings.HasSuffix(s, "\n") {
				s += "\n"
			}
			fmt.Fprint(stdout, s)
		}
	}
	return status
}

// ipTimeRecord is one command's line of netsim ip -netsim-json.
type ipTimeRecord struct {
	Line        int     `json:"line,omitempty"` // the batch line; 0 for a command line
	Command     string  `json:"command"`
	Failed      bool    `json:"failed,omitempty"`
	VirtualS    float64 `json:"virtual_s"`
	RTNLHeldS   float64 `json:"rtnl_held_s"`
	RTNLWaitedS float64 `json:"rtnl_waited_s"`
}

// ipTotalRecord is the last line of netsim ip -netsim-json.
type ipTotalRecord struct {
	Total        bool    `json:"total"`
	Commands     int     `json:"commands"`
	Status       int     `json:"status"`
	VirtualS     float64 `json:"virtual_s"`
	RTNLHeldS    float64 `json:"rtnl_held_s"`
	RTNLHoldMaxS float64 `json:"rtnl_hold_max_s"`
	RTNLWaitedS  float64 `json:"rtnl_waited_s"`
	RealS        float64 `json:"real_s"`
}

func writeJSONLine(w io.Writer, v any) {
	b, _ := json.Marshal(v) // plain structs of numbers and strings
	w.Write(append(b, '\n'))
}

// matchesOpt is ip's prefix match of an option ("-b" is "-batch").
func matchesOpt(word, opt string) bool {
	if strings.HasPrefix(word, "--") {
		word = word[1:]
	}
	return len(word) > 1 && strings.HasPrefix(opt, word)
}
