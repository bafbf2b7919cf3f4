// The ip process: main, batch mode and the command loop of iproute2 6.1's
// ip/ip.c (do_cmd, batch, -force), with the exit statuses ip returns.

package iproute

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// IP is one `ip` process on a simulated kernel: it runs commands as one
// task, prints their output to Stdout and their errors to Stderr. The zero
// IP is not usable; call New. An IP is used by one goroutine at a time.
type IP struct {
	Stdout, Stderr io.Writer
	Stdin          io.Reader // read by `-batch -`; nil reads nothing

	// Open opens the file of `-batch FILE`; nil is os.Open.
	Open func(name string) (io.ReadCloser, error)

	// AfterCommand, if set, is called after each command of Main, Run and
	// Batch with the command's words, its batch line (0 outside a batch)
	// and its error (nil on success).
	AfterCommand func(args []string, line int, err error)

	// ChargeProcess makes Main charge the task what the ip process
	// costs in user space besides its requests: sim.IPExec as it starts
	// (fork and exec from a shell), sim.NetnsExec for each -n NETNS (its
	// netns_switch), sim.IPBatchLine after each line of a batch, before
	// AfterCommand sees it. Run and Batch charge nothing: their caller
	// is a process already.
	ChargeProcess bool

	k *rtnl.Kernel
	t *sim.Task

	process // what one ip process keeps: its options and static state

	out *bufio.Writer
	p   printer // writes to out

	// inMain is set while Main runs: ChargeProcess charges only then.
	inMain bool

	// inBatch is set while a batch runs: its rtnetlink socket asks for
	// no strict dumps (batch() does not call rtnl_set_strict_dump).
	inBatch bool
}

// process is the state one ip process keeps from its start to its exit:
// its options and the filters and caches iproute2 keeps in static
// variables over a batch's lines. A new process (Main, Run, Batch, and
// the ip that `netns exec` starts) begins with the zero process.
type process struct {
	family rt.Family // -4, -6 (AF_INET, AF_INET6) or 0
	netns  string    // -n NETNS; "" is the initial namespace
	opts   options
	maddr  maddrFilter // ipmaddr.c's filter, kept across a batch's lines

	nhFilter nexthopFilter // ip nexthop's filter, kept over a batch's lines
	nhCache  nexthopCache  // the nexthops ip route -d has asked for, kept over a batch's lines
	ll       llMap         // ll_map.c's cache of device names, kept over a batch's lines
	// doLink is ip/ipaddress.c's do_link, which `ip link show` sets and
	// nothing clears: in a batch, every `ip addr show` after it lists as
	// `ip link show` does (print_linkinfo's link mode, alias and
	// statistics, and a device alone fetched and printed without its
	// addresses).
	doLink bool

	// ip6MultipleTables is filter_nlmsg's static: an IPv6 route of a
	// table other than main was dumped (routeFilter.multi).
	ip6MultipleTables bool

	all   bool      // -all: do_all
	nsids nsidCache // ipnetns.c's cache of namespace ids to names
}

// options are ip's output options, counted as ip counts them (-s -s is
// stats 2).
type options struct {
	json    bool // -j[son]
	pretty  bool // -p[retty]: indented JSON
	brief   int  // -br[ief]
	oneline int  // -o[neline]: one line per object, "\" for its newlines
	details int  // -d[etails]
	stats   int  // -s[tatistics]
}

// reset forgets what a previous Main, Run or Batch set: ip's options and
// the filters iproute2 keeps in static variables for a batch's lines.
func (ip *IP) reset() { ip.process = process{} }

// New returns an IP that acts on kernel k as task t, printing to
// os.Stdout and os.Stderr and reading os.Stdin.
func New(k *rtnl.Kernel, t *sim.Task) *IP {
	return &IP{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin, k: k, t: t}
}

// Kernel returns the kernel the IP acts on.
func (ip *IP) Kernel() *rtnl.Kernel { return ip.k }

// Task returns the task the IP runs as.
func (ip *IP) Task() *sim.Task { return ip.t }

// Exit statuses of ip.
const (
	exitOK      = 0
	exitFailure = 1   // EXIT_FAILURE: ip's own checks, a failed batch
	exitNetlink = 2   // a request the kernel refused (rtnl_talk failing)
	exitArg     = 255 // exit(-1): invarg, duparg, usage
)

// argError is an error ip detects in its arguments and reports by exiting
// at once (invarg, duparg, usage, get_prefix failures): it ends the whole
// process, a batch included, with or without -force.
type argError struct {
	msg    string // printed as is to stderr
	status int
}

func (e *argError) Error() string { return strings.TrimRight(e.msg, "\n") }

// cmdError is a failed command that ip reports and returns from: its
// message is printed as is, and a batch goes on with -force.
type cmdError struct {
	msg    string // printed as is to stderr ("" prints nothing)
	status int
}

func (e *cmdError) Error() string {
	if e.msg == "" {
		return fmt.Sprintf("exit status %d", e.status)
	}
	return strings.TrimRight(e.msg, "\n")
}

// invarg is iproute2's invarg(msg, arg): `Error: argument "ARG" is wrong: MSG`.
func invarg(msg, arg string) error {
	return &argError{msg: fmt.Sprintf("Error: argument \"%s\" is wrong: %s\n", arg, msg), status: exitArg}
}

// duparg2 is iproute2's duparg2(key, arg).
func duparg2(key, arg string) error {
	return &argError{msg: fmt.Sprintf("Error: either \"%s\" is duplicate, or \"%s\" is a garbage.\n", key, arg), status: exitArg}
}

// duparg is iproute2's duparg(key, arg).
func duparg(key, arg string) error {
	return &argError{msg: fmt.Sprintf("Error: duplicate \"%s\": \"%s\" is the second value.\n", key, arg), status: exitArg}
}

// usageErr is a command's usage() or incomplete_command(): ip prints its
// usage text and exits.
func usageErr(text string) error { return &argError{msg: text, status: exitArg} }

// incomplete is iproute2's incomplete_command.
func incomplete() error {
	return &argError{msg: "Command line is not complete. Try option \"help\"\n", status: exitArg}
}

// failf is a failed command with ip's own message and exit status 1.
func failf(format string, args ...any) error {
	return &cmdError{msg: fmt.Sprintf(format, args...), status: exitFailure}
}

// nodev is iproute2's nodev(): the device name resolved to no ifindex.
func nodev(name string) error { return failf("Cannot find device \"%s\"\n", name) }

// Message returns what ip prints on stderr for err, a command's error:
// ip's own message, or for an error of the kernel "Error: <extack>." when
// it carries an extack message and "RTNETLINK answers: <strerror>" when it
// does not.
func Message(err error) string {
	var ae *argError
	var ce *cmdError
	var ke *errno.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ae):
		return ae.msg
	case errors.As(err, &ce):
		return ce.msg
	case errors.As(err, &ke):
		return kernelMessage(ke.Errno, ke.Msg)
	}
	if en := errno.Of(err); en != 0 {
		return kernelMessage(en, "")
	}
	return "Error: " + err.Error() + "\n"
}

// kernelMessage is how rtnl_talk reports an error answer: the extack
// message if any (nl_dump_ext_ack), else perror("RTNETLINK answers").
func kernelMessage(en syscall.Errno, msg string) string {
	if msg != "" && kernelHasExtack(en, msg) {
		if !strings.HasSuffix(msg, ".") {
			msg += "."
		}
		return "Error: " + msg + "\n"
	}
	return "RTNETLINK answers: " + Strerror(en) + "\n"
}

// status returns ip's exit status for a command that failed with err.
func status(err error) int {
	var ae *argError
	var ce *cmdError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ae):
		return ae.status
	case errors.As(err, &ce):
		return ce.status
	}
	return exitNetlink
}

// Main runs an `ip` command line — options, then an object and its
// command, or -batch FILE — and returns ip's exit status. Everything ip
// would print has been written to Stdout and Stderr.
func (ip *IP) Main(args []string) int {
	ip.reset()
	defer func(was bool) { ip.inMain = was }(ip.inMain)
	ip.inMain = true
	ip.charge(sim.IPExec)
	var st mainState
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		opt := args[0]
		if opt == "--" {
			args = args[1:]
			break
		}
		if strings.HasPrefix(opt, "--") {
			opt = opt[1:]
		}
		o := lookupOption(opt)
		if o == nil {
			return ip.fail(&argError{msg: fmt.Sprintf("Option \"%s\" is unknown, try \"ip -help\".\n", opt), status: exitArg})
		}
		if o.refused != "" {
			return ip.fail(unsupportedOption(opt, o.refused))
		}
		value := ""
		if o.value {
			if len(args) < 2 {
				return ip.fail(incomplete())
			}
			args = args[1:]
			value = args[0]
		}
		if done, status := o.apply(ip, &st, opt, value); done {
			return status
		}
		args = args[1:]
	}
	force, batch, haveBatch := st.force, st.batch, st.haveBatch
	if haveBatch {
		var r io.Reader
		name := batch
		if batch == "-" {
			r = ip.Stdin
			if r == nil {
				r = strings.NewReader("")
			}
		} else {
			open := ip.Open
			if open == nil {
				open = func(name string) (io.ReadCloser, error) { return os.Open(name) }
			}
			f, err := open(batch)
			if err != nil {
				msg := err.Error()
				var pe *os.PathError
				if errors.As(err, &pe) {
					msg = Strerror(errno.Of(pe.Err))
				}
				fmt.Fprintf(ip.Stderr, "Cannot open file \"%s\" for reading: %s\n", batch, msg)
				return exitFailure
			}
			defer f.Close()
			r = f
		}
		return ip.batch(r, name, force)
	}
	if len(args) == 0 {
		return ip.fail(usageErr(mainUsage))
	}
	err := ip.cmd(args)
	if ip.AfterCommand != nil {
		ip.AfterCommand(args, 0, err)
	}
	return ip.fail(err)
}

// isColorOption is iproute2's matches_color: -c[olor][=always|auto|never].
func isColorOption(opt string) bool {
	name, val, _ := strings.Cut(opt, "=")
	return matches(name, "-color") && (val == "" || val == "always" || val == "auto" || val == "never")
}

// colorValue is the value of a colour option ("" for none).
func colorValue(opt string) string {
	_, val, _ := strings.Cut(opt, "=")
	return val
}

// unsupportedOption is an option of ip's that netsim does not implement,
// with the reason.
func unsupportedOption(opt, why string) error {
	return &argError{msg: fmt.Sprintf("Option \"%s\" is not supported by netsim: %s.\n", opt, why), status: exitArg}
}

// fail prints err as ip does and returns the exit status.
func (ip *IP) fail(err error) int {
	if err != nil {
		io.WriteString(ip.Stderr, Message(err))
	}
	return status(err)
}

// Run runs one command (`ip ARGS...` without options, e.g. "route", "add",
// "10.0.0.0/8", "dev", "eth0") in the initial namespace, printing its
// output, and returns its error, which Message renders as ip would. An
// error ip reports by exiting is returned like any other.
func (ip *IP) Run(args ...string) error {
	ip.reset()
	err := ip.cmd(args)
	if ip.AfterCommand != nil {
		ip.AfterCommand(args, 0, err)
	}
	return err
}

// Batch runs script (named name in "Command failed NAME:LINE") as `ip
// [-force] -batch NAME` does, and returns ip's exit status.
func (ip *IP) Batch(script io.Reader, name string, force bool) int {
	ip.reset()
	return ip.batch(script, name, force)
}

// batch is iproute2's batch(): read a line (with '#' comments and '\'
// continuations), split it into words, run it; report a failure with its
// line number and stop unless force.
func (ip *IP) batch(r io.Reader, name string, force bool) int {
	ip.inBatch = true
	defer func() { ip.inBatch = false }()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	ret := exitOK
	line := 0
	var words []string
	for {
		text, ok, n := readCmdLine(sc)
		if !ok {
			break
		}
		line += n
		words = splitArgs(text, words[:0])
		if len(words) == 0 {
			continue
		}
		if len(words) >= maxArgs {
			// makeargs has room for MAX_ARGS-1 words and exits.
			io.WriteString(ip.Stderr, "Too many arguments to command\n")
			return exitFailure
		}
		err := ip.cmd(words)
		ip.charge(sim.IPBatchLine)
		if ip.AfterCommand != nil {
			ip.AfterCommand(words, line, err)
		}
		if err == nil {
			continue
		}
		io.WriteString(ip.Stderr, Message(err))
		var ae *argError
		if errors.As(err, &ae) {
			return ae.status
		}
		fmt.Fprintf(ip.Stderr, "Command failed %s:%d\n", name, line)
		ret = exitFailure
		if !force {
			break
		}
	}
	return ret
}

// charge charges the task one k of the ip process's own work when Main
// runs with ChargeProcess.
func (ip *IP) charge(k sim.Kind) {
	if ip.ChargeProcess && ip.inMain {
		ip.t.Charge(k, 1)
	}
}

// maxArgs is iproute2's MAX_ARGS: a batch line holds at most 511 words
// (a route's paths with gateways: 169 of them).
const maxArgs = 512

// readCmdLine is iproute2's getcmdline: one command, joined across lines
// that end in '\', with everything from '#' on dropped. It returns the
// number of physical lines read.
//
// getcmdline works on C strings: a line ends at a NUL byte, and a line cut
// that way is not continued.
func readCmdLine(sc *bufio.Scanner) (string, bool, int) {
	if !sc.Scan() {
		return "", false, 0
	}
	n := 1
	text, cut := cString(sc.Text())
	for !cut && strings.HasSuffix(text, "\\") && sc.Scan() {
		n++
		var next string
		next, cut = cString(sc.Text())
		text = text[:len(text)-1] + next
	}
	if i := strings.IndexByte(text, '#'); i >= 0 {
		text = text[:i]
	}
	return text, true, n
}

// cString returns s up to its first NUL byte, and whether it had one.
func cString(s string) (string, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i], true
	}
	return s, false
}

// splitArgs is iproute2's makeargs: words separated by blanks, where a
// word may be quoted with " or '.
func splitArgs(s string, out []string) []string {
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		if c == '"' || c == '\'' {
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				out = append(out, s[i+1:])
				break
			}
			out = append(out, s[i+1:i+1+j])
			i += j + 2
			continue
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// objects is ip's table of objects, in its order: a word names the first
// object it is a prefix of. An object netsim runs has run, or obj when its
// commands are a table; the others say why netsim refuses them.
var objects []struct {
	name    string
	run     func(ip *IP, h *handle, args []string) error
	obj     *object
	refused string
}

// init fills objects: a literal would be an initialization cycle, since
// `ip netns exec NS ip ...` runs ip again.
func init() {
	type o = struct {
		name    string
		run     func(ip *IP, h *handle, args []string) error
		obj     *object
		refused string
	}
	const (
		noIPv6Labels = "netsim has no IPv6 address labels"
		noTunnels    = "netsim models no tunnels"
		noMonitor    = "ip monitor is not implemented (the notifications reach nlwire sockets)"
		noXfrm       = "netsim models no IPsec"
		noMcast      = "netsim models no multicast routing"
	)
	objects = append(objects[:0], []o{
		{name: "address", obj: &addrObject},
		{name: "addrlabel", refused: noIPv6Labels},
		{name: "maddress", obj: &maddrObject},
		{name: "route", obj: &routeObject},
		{name: "rule", obj: &ruleObject},
		{name: "neighbor", obj: &neighObject},
		{name: "neighbour", obj: &neighObject},
		{name: "ntable", refused: noNeighTable},
		{name: "ntbl", refused: noNeighTable},
		{name: "link", obj: &linkObject},
		{name: "l2tp", refused: noTunnels},
		{name: "fou", refused: noTunnels},
		{name: "ila", refused: "netsim models no ILA"},
		{name: "macsec", refused: "netsim models no MACsec"},
		{name: "tunnel", refused: noTunnels},
		{name: "tunl", refused: noTunnels},
		{name: "tuntap", refused: "netsim models no tun/tap devices"},
		{name: "tap", refused: "netsim models no tun/tap devices"},
		{name: "token", refused: "netsim models no IPv6 tokens"},
		{name: "tcpmetrics", refused: "netsim models no TCP"},
		{name: "tcp_metrics", refused: "netsim models no TCP"},
		{name: "monitor", refused: noMonitor},
		{name: "xfrm", refused: noXfrm},
		{name: "mroute", refused: noMcast},
		{name: "mrule", refused: noMcast},
		{name: "netns", obj: &netnsObject},
		{name: "netconf", refused: "netsim models no netconf"},
		{name: "vrf", refused: "netsim models no VRF cgroups"},
		{name: "sr", refused: "netsim models no segment routing"},
		{name: "nexthop", obj: &nexthopObject},
		{name: "mptcp", refused: "netsim models no MPTCP"},
		{name: "ioam", refused: "netsim models no IOAM"},
		{name: "help"},
		{name: "stats", refused: "netsim keeps no statistics"},
	}...)
}

// cmd is iproute2's do_cmd: find the object, run its command.
func (ip *IP) cmd(args []string) error {
	obj := args[0]
	for _, o := range objects {
		if !matches(obj, o.name) {
			continue
		}
		if o.run == nil && o.obj == nil {
			if o.name == "help" {
				return usageErr(mainUsage)
			}
			return failf("Object \"%s\" is not supported by netsim: %s.\n", o.name, o.refused)
		}
		h, err := ip.handle()
		if err != nil {
			return err
		}
		// The command's process leaves the namespace when it exits.
		defer h.Close()
		if ip.out == nil {
			ip.out = bufio.NewWriterSize(ip.Stdout, 64*1024)
		} else {
			ip.out.Reset(ip.Stdout)
		}
		ip.p = printer{w: ip.out, sl: "\n"}
		if ip.opts.oneline > 0 {
			ip.p.sl = "\\"
		}
		switch {
		case o.obj != nil:
			err = o.obj.run(ip, h, args[1:])
		case ip.opts.set() != 0 && o.name != "link" && o.name != "address":
			err = failf("ip %s: option %s is not supported by netsim.\n", o.name, ip.opts.set())
		default:
			err = o.run(ip, h, args[1:])
		}
		if ferr := ip.out.Flush(); err == nil && ferr != nil {
			err = failf("%v\n", ferr)
		}
		return err
	}
	return failf("Object \"%s\" is unknown, try \"ip help\".\n", obj)
}

// handle returns a handle on the current namespace, which holds it (as ip
// holds the namespace it entered with -netns) until closed.
func (ip *IP) handle() (*handle, error) {
	n := ip.k.Net(ip.netns)
	if n == nil {
		return nil, failf("Cannot open network namespace \"%s\": No such file or directory\n", ip.netns)
	}
	return &handle{Handle: n.Handle(ip.t), ll: &ip.ll}, nil
}

// printf writes command output.
func (ip *IP) printf(format string, args ...any) { fmt.Fprintf(ip.out, format, args...) }

// matches is iproute2's matches(prefix, keyword), true when the word is a
// non-empty prefix of the keyword.
func matches(word, keyword string) bool {
	return word != "" && len(word) <= len(keyword) && keyword[:len(word)] == word
}

// Output runs one command line as Main does and returns its stdout,
// stderr and exit status: a convenience for tests and examples.
func (ip *IP) Output(args ...string) (stdout, stderr string, status int) {
	var o, e bytes.Buffer
	so, se := ip.Stdout, ip.Stderr
	ip.Stdout, ip.Stderr = &o, &e
	status = ip.Main(args)
	ip.Stdout, ip.Stderr = so, se
	return o.String(), e.String(), status
}

// mainUsage is ip 6.1's usage().
const mainUsage = `Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }
       ip [ -force ] -batch filename
where  OBJECT := { address | addrlabel | amt | fou | help | ila | ioam | l2tp |
                   link | macsec | maddress | monitor | mptcp | mroute | mrule |
                   neighbor | neighbour | netconf | netns | nexthop | ntable |
                   ntbl | route | rule | sr | tap | tcpmetrics |
                   token | tunnel | tuntap | vrf | xfrm }
       OPTIONS := { -V[ersion] | -s[tatistics] | -d[etails] | -r[esolve] |
                    -h[uman-readable] | -iec | -j[son] | -p[retty] |
                    -f[amily] { inet | inet6 | mpls | bridge | link } |
                    -4 | -6 | -M | -B | -0 |
                    -l[oops] { maximum-addr-flush-attempts } | -br[ief] |
                    -o[neline] | -t[imestamp] | -ts[hort] | -b[atch] [filename] |
                    -rc[vbuf] [size] | -n[etns] name | -N[umeric] | -a[ll] |
                    -c[olor]}
`

// unknownCmd is an object's reply to a command it does not know: ip exits.
func unknownCmd(cmd, object string) error {
	return &argError{msg: fmt.Sprintf("Command \"%s\" is unknown, try \"ip %s help\".\n", cmd, object), status: exitArg}
}

// kernelHasExtack reports whether the real kernel attaches an extack
// message to the error netsim's kernel gives as en and msg.
func kernelHasExtack(en syscall.Errno, msg string) bool { return rtnl.HasExtack(en, msg) }

// notSupported is a keyword ip knows and netsim does not model.
func notSupported(cmd, keyword string) error {
	return failf("%s: \"%s\" is not supported by netsim.\n", cmd, keyword)
}
