package iproute_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
)

// A batch that fails with exit status 1 ends with the line of its last
// failure, or with one of the argument errors after which ip exits with 1
// (a line of more than 511 words among them).
var failedLast = regexp.MustCompile(`(Command failed fuzz:[0-9]+|Error: .* is expected rather than ".*"\.|Error: ".*" may be inet prefix, but it is not allowed in this context\.|Error: an IP address is expected rather than ".*"|"dev" \(.*\) must match "label" \(.*\)\.|ioctl: .*|Error: Invalid address length [0-9]+ - must be 6 bytes|".*" is invalid lladdr\.|Too many arguments to command)\n$`)

// mxOverflow is what ip prints, and goes on, when a route's metrics do
// not fit its 256-byte buffer (iproute_modify's mxbuf).
var mxOverflow = regexp.MustCompile(`(?m)^rta_addattr(32|_l): Error! max allowed bound 256 exceeded\n`)

// warnings are what ip prints and goes on after (ipaddr_modify's flags
// and wildcard deletion): a command that succeeds after them may follow a
// failed one.
var warnings = regexp.MustCompile(`(?m)^Warning: .*\n(^ {9}.*\n)*`)

// FuzzBatch runs arbitrary text as an `ip -force -batch` script on a
// kernel with a veth pair, an address and a nexthop: no input panics, and
// a batch that fails either names its last failed line, as "Command failed
// fuzz:LINE", or was ended by an argument error (exit status 255 or 1, with
// no "Command failed" after the message); the kernel's invariants hold
// after every command (of the first 200) and at the end.
func FuzzBatch(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		a := parseArchive(string(data))
		for name, s := range a.files {
			if name != "cmd" && !strings.HasPrefix(name, "want") {
				f.Add(s)
			}
		}
	}
	f.Add("route add 10.0.0.0/8 nexthop via 10.0.0.2 dev va weight 3 nexthop via 10.0.0.3\n")
	f.Add("rule add not from 1.2.3.0/24 fwmark 0x5/0xff sport 1-2 dport 3 ipproto udp uidrange 1-2 goto 5\n")
	f.Add("link add x type veth peer\nlink set x up\naddr flush dev x\n")
	f.Add("\"link\" 'add' d0 type \\\ndummy\n# comment\n")
	f.Add("maddr add 33:33:00:00:00:05 dev va\nmaddr del 33:33:00:00:00:05 dev va\n")
	f.Add("0\nm a dev va\n")
	f.Fuzz(func(t *testing.T, script string) {
		k := rtnl.MustNewKernel(rtnl.After)
		ip := iproute.New(k, k.World().NewTask("ip"))
		var out, errOut bytes.Buffer
		ip.Stdout, ip.Stderr = &out, &errOut
		setup := "link add va type veth peer name vb\nlink set va up\nlink set vb up\naddr add 10.0.0.1/24 dev va\nnexthop add id 1 via 10.0.0.2 dev va\n"
		if st := ip.Batch(strings.NewReader(setup), "setup", false); st != 0 {
			t.Fatalf("setup: exit %d: %s", st, errOut.String())
		}
		// A hang is a failure too: after 10 s, fail with every goroutine's
		// stack (the fuzzer saves the input).
		timer := time.AfterFunc(10*time.Second, func() {
			buf := make([]byte, 1<<20)
			panic("batch hung:\n" + string(buf[:runtime.Stack(buf, true)]))
		})
		// `ip maddr add/del` ends ip with status 0 whatever failed before
		// it (multiaddr_modify's exit(0)).
		exited := false
		// The kernel's invariants are checked after every command of the
		// first checkedCommands, and at the end (a check walks the whole
		// kernel: after every command of the long seed scripts it would
		// take minutes).
		const checkedCommands = 200
		var broken error // the first command after which they broke
		cmds := 0
		ip.AfterCommand = func(args []string, _ int, err error) {
			exited = err != nil && iproute.Message(err) == "" && len(args) > 1 && strings.HasPrefix("maddress", args[0])
			if cmds++; cmds <= checkedCommands && broken == nil {
				if ierr := k.CheckInvariants(); ierr != nil {
					broken = fmt.Errorf("after ip %s: %w", strings.Join(args, " "), ierr)
				}
			}
		}
		st := ip.Batch(strings.NewReader(script), "fuzz", true)
		timer.Stop()
		if broken == nil {
			if err := k.CheckInvariants(); err != nil {
				broken = fmt.Errorf("after the batch: %w", err)
			}
		}
		if broken != nil {
			t.Fatalf("the kernel's invariants: %v", broken)
		}
		errText := warnings.ReplaceAllString(mxOverflow.ReplaceAllString(errOut.String(), ""), "")
		switch st {
		case 0:
			if errText != "" && !strings.HasPrefix(errText, "Warning: ") && !exited {
				t.Fatalf("exit 0 with errors: %q", errOut.String())
			}
		case 1:
			if !failedLast.MatchString(errText) {
				t.Fatalf("exit 1 without naming the line: %q", errOut.String())
			}
		case 255:
		default:
			t.Fatalf("exit status %d: %q", st, errOut.String())
		}
	})
}

// FuzzOptions runs a script under arbitrary ip options (`ip OPTIONS
// -force -batch -`): no input panics, and when the options ask for JSON,
// every document ip prints decodes.
func FuzzOptions(f *testing.F) {
	for _, o := range []string{"-j", "-j -p", "-o", "-br", "-d", "-s -s", "-4 -j -d -s", "-json -pretty -oneline"} {
		f.Add(o, "maddr show\nlink show\naddr show\nroute show table all\nnexthop show\nrule show\nmaddr add 33:33:00:00:00:05 dev va\n")
	}
	f.Fuzz(func(t *testing.T, opts, script string) {
		k := rtnl.MustNewKernel(rtnl.After)
		ip := iproute.New(k, k.World().NewTask("ip"))
		var out, errOut bytes.Buffer
		ip.Stdout, ip.Stderr = &out, &errOut
		setup := "link add va type veth peer name vb\nlink set va up\nlink set vb up\naddr add 10.0.0.1/24 dev va\nnexthop add id 1 via 10.0.0.2 dev va\n"
		if st := ip.Batch(strings.NewReader(setup), "setup", false); st != 0 {
			t.Fatalf("setup: exit %d: %s", st, errOut.String())
		}
		out.Reset()
		var args []string
		for _, w := range strings.Fields(opts) {
			if strings.HasPrefix(w, "-b") || strings.HasPrefix(w, "--b") || strings.HasPrefix(w, "-n") || strings.HasPrefix(w, "--n") {
				continue // the batch is ours; -netns would need a namespace
			}
			args = append(args, w)
		}
		ip.Stdin = strings.NewReader(script)
		timer := time.AfterFunc(10*time.Second, func() {
			buf := make([]byte, 1<<20)
			panic("batch hung:\n" + string(buf[:runtime.Stack(buf, true)]))
		})
		st := ip.Main(append(args, "-force", "-batch", "-"))
		timer.Stop()
		if st != 0 && st != 1 && st != 2 && st != 255 {
			t.Fatalf("exit status %d: %q", st, errOut.String())
		}
		if wantsJSON(args) {
			if err := decodeJSON(out.String()); err != nil {
				t.Fatalf("JSON output does not decode: %v\n%s", err, out.String())
			}
		}
	})
}
