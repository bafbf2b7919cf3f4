package iproute_test

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/rtnl"
)

// A batch as `ip -batch -` runs it, on a simulated kernel: the output is
// what ip prints on a real one — show output on stdout, and for the failed
// line its error and "Command failed FILE:LINE" on stderr (here both go to
// stdout).
func Example() {
	k := rtnl.MustNewKernel(rtnl.After)
	ip := iproute.New(k, k.World().NewTask("ip"))
	// ip ends route and nexthop lines with a space; trimSpaces drops it so
	// that the Output comment below can hold the lines.
	ip.Stdout, ip.Stderr = trimSpaces{os.Stdout}, os.Stdout

	script := `
link add va address 02:00:00:00:00:0a type veth peer name vb address 02:00:00:00:00:0b
link set va up
link set vb up
addr add 10.0.0.1/24 dev va
nexthop add id 1 via 10.0.0.2 dev va
route add 10.1.0.0/16 nhid 1
route add 10.2.0.0/16 nhid 2
`
	status := ip.Batch(strings.NewReader(script), "-", true)
	fmt.Println("exit status", status)
	ip.Main([]string{"route", "show"})
	ip.Main([]string{"nexthop", "show"})
	// Output:
	// Error: Nexthop id does not exist.
	// Command failed -:8
	// exit status 1
	// 10.0.0.0/24 dev va proto kernel scope link src 10.0.0.1
	// 10.1.0.0/16 nhid 1 via 10.0.0.2 dev va
	// id 1 via 10.0.0.2 dev va scope link
}

// Run executes one command and returns its error; Message renders the
// error as ip prints it.
func ExampleIP_Run() {
	k := rtnl.MustNewKernel(rtnl.After)
	ip := iproute.New(k, k.World().NewTask("ip"))
	ip.Stdout = os.Stdout

	err := ip.Run("link", "set", "eth0", "up")
	fmt.Print(iproute.Message(err))
	err = ip.Run("route", "add", "10.0.0.0/8", "via", "192.0.2.1")
	fmt.Print(iproute.Message(err))
	err = ip.Run("rule", "add", "from", "10.0.0.0/8", "lookup", "100")
	fmt.Println(err == nil)
	_ = ip.Run("rule", "show")
	// Output:
	// Cannot find device "eth0"
	// Error: Nexthop has invalid gateway.
	// true
	// 0:	from all lookup local
	// 32765:	from 10.0.0.0/8 lookup 100
	// 32766:	from all lookup main
	// 32767:	from all lookup default
}

// trimSpaces writes each line without its trailing spaces.
type trimSpaces struct{ w io.Writer }

func (t trimSpaces) Write(p []byte) (int, error) {
	lines := strings.SplitAfter(string(p), "\n")
	for i, l := range lines {
		if strings.HasSuffix(l, " \n") {
			lines[i] = strings.TrimRight(l, " \n") + "\n"
		}
	}
	_, err := io.WriteString(t.w, strings.Join(lines, ""))
	return len(p), err
}
