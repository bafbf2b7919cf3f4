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

	k *rtnl.Kernel
	t *sim.Task

	family int    // -4, -6 (AF_INET, AF_INET6) or 0
	netns  string // -n NETNS; "" is the initial namespace
	out    *bufio.Writer

	nhFilter nexthopFilter // ip nexthop's filter, kept over a batch's lines
}

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
	ip.family, ip.netns = 0, ""
	ip.nhFilter = nexthopFilter{}
	force, batch, haveBatch := false, "", false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		opt := args[0]
		if opt == "--" {
			args = args[1:]
			break
		}
		if strings.HasPrefix(opt, "--") {
			opt = opt[1:]
		}
		next := func() (string, bool) {
			if len(args) < 2 {
				return "", false
			}
			args = args[1:]
			return args[0], true
		}
		switch {
		case matches(opt, "-loops"):
			if _, ok := next(); !ok {
				return ip.fail(incomplete())
			}
		case matches(opt, "-family"):
			f, ok := next()
			if !ok {
				return ip.fail(incomplete())
			}
			switch f {
			case "inet":
				ip.family = syscall.AF_INET
			case "inet6":
				ip.family = syscall.AF_INET6
			case "help":
				return ip.fail(usageErr(mainUsage))
			default:
				return ip.fail(invarg("invalid protocol family", f))
			}
		case opt == "-4":
			ip.family = syscall.AF_INET
		case opt == "-6":
			ip.family = syscall.AF_INET6
		case matches(opt, "-human"), matches(opt, "-human-readable"), matches(opt, "-iec"):
			// They format statistics, which netsim does not print.
		case matches(opt, "-stats"), matches(opt, "-statistics"), matches(opt, "-details"),
			matches(opt, "-resolve"), matches(opt, "-oneline"), matches(opt, "-timestamp"), matches(opt, "-tshort"):
			return ip.fail(unsupportedOption(opt))
		case matches(opt, "-force"):
			force = true
		case matches(opt, "-batch"):
			f, ok := next()
			if !ok {
				return ip.fail(incomplete())
			}
			batch, haveBatch = f, true
		case matches(opt, "-help"):
			return ip.fail(usageErr(mainUsage))
		case matches(opt, "-netns"):
			ns, ok := next()
			if !ok {
				return ip.fail(incomplete())
			}
			if ip.k.Net(ns) == nil {
				return ip.fail(&argError{msg: fmt.Sprintf("Cannot open network namespace \"%s\": No such file or directory\n", ns), status: exitArg})
			}
			ip.netns = ns
		case matches(opt, "-Numeric"), matches(opt, "-all"), matches(opt, "-json"), matches(opt, "-pretty"),
			matches(opt, "-brief"), matches(opt, "-echo"):
			return ip.fail(unsupportedOption(opt))
		default:
			return ip.fail(&argError{msg: fmt.Sprintf("Option \"%s\" is unknown, try \"ip -help\".\n", opt), status: exitArg})
		}
		args = args[1:]
	}
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

// unsupportedOption is an option of ip's that netsim does not implement.
func unsupportedOption(opt string) error {
	return &argError{msg: fmt.Sprintf("Option \"%s\" is not supported by netsim.\n", opt), status: exitArg}
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
	ip.family, ip.netns = 0, ""
	ip.nhFilter = nexthopFilter{}
	err := ip.cmd(args)
	if ip.AfterCommand != nil {
		ip.AfterCommand(args, 0, err)
	}
	return err
}

// Batch runs script (named name in "Command failed NAME:LINE") as `ip
// [-force] -batch NAME` does, and returns ip's exit status.
func (ip *IP) Batch(script io.Reader, name string, force bool) int {
	ip.family, ip.netns = 0, ""
	ip.nhFilter = nexthopFilter{}
	return ip.batch(script, name, force)
}

// batch is iproute2's batch(): read a line (with '#' comments and '\'
// continuations), split it into words, run it; report a failure with its
// line number and stop unless force.
func (ip *IP) batch(r io.Reader, name string, force bool) int {
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
		err := ip.cmd(words)
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

// readCmdLine is iproute2's getcmdline: one command, joined across lines
// that end in '\', with everything from '#' on dropped. It returns the
// number of physical lines read.
func readCmdLine(sc *bufio.Scanner) (string, bool, int) {
	if !sc.Scan() {
		return "", false, 0
	}
	n := 1
	text := sc.Text()
	for strings.HasSuffix(text, "\\") && sc.Scan() {
		n++
		text = text[:len(text)-1] + sc.Text()
	}
	if i := strings.IndexByte(text, '#'); i >= 0 {
		text = text[:i]
	}
	return text, true, n
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
// object it is a prefix of.
var objects []struct {
	name string
	run  func(ip *IP, h *rtnl.Handle, args []string) error
}

// init fills objects: a literal would be an initialization cycle, since
// `ip netns exec NS ip ...` runs ip again.
func init() {
	objects = append(objects[:0], []struct {
		name string
		run  func(ip *IP, h *rtnl.Handle, args []string) error
	}{
		{"address", (*IP).doAddr},
		{"addrlabel", nil},
		{"maddress", (*IP).doMaddr},
		{"route", (*IP).doRoute},
		{"rule", (*IP).doRule},
		{"neighbor", (*IP).doNeigh},
		{"neighbour", (*IP).doNeigh},
		{"ntable", nil},
		{"ntbl", nil},
		{"link", (*IP).doLink},
		{"l2tp", nil},
		{"fou", nil},
		{"ila", nil},
		{"macsec", nil},
		{"tunnel", nil},
		{"tunl", nil},
		{"tuntap", nil},
		{"tap", nil},
		{"token", nil},
		{"tcpmetrics", nil},
		{"tcp_metrics", nil},
		{"monitor", nil},
		{"xfrm", nil},
		{"mroute", nil},
		{"mrule", nil},
		{"netns", (*IP).doNetns},
		{"netconf", nil},
		{"vrf", nil},
		{"sr", nil},
		{"nexthop", (*IP).doNexthop},
		{"mptcp", nil},
		{"ioam", nil},
		{"help", nil},
		{"stats", nil},
	}...)
}

// cmd is iproute2's do_cmd: find the object, run its command.
func (ip *IP) cmd(args []string) error {
	obj := args[0]
	for _, o := range objects {
		if !matches(obj, o.name) {
			continue
		}
		if o.run == nil {
			if o.name == "help" {
				return usageErr(mainUsage)
			}
			return failf("Object \"%s\" is not supported by netsim.\n", o.name)
		}
		h, err := ip.handle()
		if err != nil {
			return err
		}
		if ip.out == nil {
			ip.out = bufio.NewWriterSize(ip.Stdout, 64*1024)
		} else {
			ip.out.Reset(ip.Stdout)
		}
		err = o.run(ip, h, args[1:])
		if ferr := ip.out.Flush(); err == nil && ferr != nil {
			err = failf("%v\n", ferr)
		}
		return err
	}
	return failf("Object \"%s\" is unknown, try \"ip help\".\n", obj)
}

// handle returns a handle on the current namespace.
func (ip *IP) handle() (*rtnl.Handle, error) {
	n := ip.k.Net(ip.netns)
	if n == nil {
		return nil, failf("Cannot open network namespace \"%s\": No such file or directory\n", ip.netns)
	}
	return n.Handle(ip.t), nil
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

const mainUsage = `Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }
       ip [ -force ] -batch filename
where  OBJECT := { address | link | maddress | netns | nexthop | route | rule }
       OPTIONS := { -4 | -6 | -force | -batch FILE | -n[etns] NAME }
`

// unknownCmd is an object's reply to a command it does not know: ip exits.
func unknownCmd(cmd, object string) error {
	return &argError{msg: fmt.Sprintf("Command \"%s\" is unknown, try \"ip %s help\".\n", cmd, object), status: exitArg}
}

// noExtack lists the errors for which netsim's kernel gives a message
// where the real kernel sets no extack: ip prints them as "RTNETLINK
// answers: <strerror>". Each is keyed by errno and message prefix.
var noExtack = []struct {
	errno  syscall.Errno
	prefix string
}{
	{syscall.EEXIST, "Device \""},                                // register_netdevice: dev_get_by_name clash
	{syscall.ENOENT, "Nexthop id does not exist"},                // rtm_get_nexthop, rtm_del_nexthop
	{syscall.EINVAL, "Lower device cannot carry macvlans"},       // macvlan_port_create on loopback
	{syscall.EADDRNOTAVAIL, "Cannot assign a multicast address"}, // eth_prepare_mac_addr_change
	{syscall.EOPNOTSUPP, "Device \""},                            // do_set_master without ndo_add_slave; rtnl_dellink without dellink
}

func kernelHasExtack(en syscall.Errno, msg string) bool {
	for _, n := range noExtack {
		if en == n.errno && strings.HasPrefix(msg, n.prefix) {
			return false
		}
	}
	return true
}

// doNeigh is `ip neigh show`: netsim keeps no neighbour table, so the list
// is that of a namespace that has sent nothing: empty.
func (ip *IP) doNeigh(_ *rtnl.Handle, argv []string) error {
	if len(argv) == 0 || matches(argv[0], "show") || matches(argv[0], "list") || matches(argv[0], "lst") {
		return nil
	}
	return failf("ip neigh %s is not supported by netsim.\n", argv[0])
}

// notSupported is a keyword ip knows and netsim does not model.
func notSupported(cmd, keyword string) error {
	return failf("%s: \"%s\" is not supported by netsim.\n", cmd, keyword)
}
