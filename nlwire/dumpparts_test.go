package nlwire_test

// Dumps in parts, on the real kernel and on nlwire: a table big enough
// for many datagrams, a dump socket that reads one datagram at a time as
// mdlayher/netlink's Receive does (peek, then read; each recvmsg lets the
// kernel fill the dump's next datagram), and a change to the table after
// the second read. Each datagram is recorded by its message count, its
// length and the messages flagged NLM_F_DUMP_INTR: the datagram
// boundaries, what the dump sees of the change, and where it says it was
// interrupted. The real kernel's records are kept in
// testdata/dumpparts/NAME.txt (rewritten with -update, as root). Where the
// datagrams split depends on the page size (mdlayher/netlink's receive
// buffer, NLMSG_GOODSIZE) and on the kernel's skb_shared_info, which nlwire
// models as x86-64's with 4 KiB pages: the real kernel is compared, and
// the records rewritten, only on such a machine (sameSkbLayout).
//
// Kernel: netlink_dump, netlink_recvmsg (net/netlink/af_netlink.c),
// nl_dump_check_consistent (include/net/netlink.h), and the dumpits.

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/internal/linediff"
	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	W "github.com/netsimlab/netsim/nlwire/internal/wiretest"
)

// A dumpCase builds a table through socket a, dumps it with req, and
// changes the table with change after the dump's second datagram is read.
type dumpCase struct {
	name   string
	build  func(side W.Side, a *netlink.Conn) error
	req    netlink.Message
	change func(a *netlink.Conn) error
	// intrOnly records only the datagrams flagged NLM_F_DUMP_INTR and
	// the end: for the dumps whose messages netsim makes shorter than
	// Linux (links: no statistics), so that their datagrams differ.
	intrOnly bool
}

// execAck sends m with NLM_F_ACK through c and returns the ack's error.
func execAck(c *netlink.Conn, m netlink.Message) error {
	m.Header.Flags |= netlink.Request | netlink.Acknowledge
	m.Header.Length = uint32(16 + len(m.Data))
	_, err := c.Execute(m)
	return err
}

// execAll sends the messages in turn, stopping at the first error.
func execAll(c *netlink.Conn, n int, m func(i int) netlink.Message) error {
	for i := range n {
		if err := execAck(c, m(i)); err != nil {
			return fmt.Errorf("request %d: %w", i, err)
		}
	}
	return nil
}

// blackhole4 and blackhole6 are the i-th /32 or /128 blackhole route in
// main; del4 and del6 delete them.
func blackhole4(i int) netlink.Message {
	return W.Msg(uapi.RTM_NEWROUTE, W.Create, W.RtMsg{Family: uapi.AF_INET, DstLen: 32, Table: uapi.RT_TABLE_MAIN,
		Protocol: uapi.RTPROT_STATIC, Type: uapi.RTN_BLACKHOLE}.Bytes(), W.IP(uapi.RTA_DST, dst4(i).String()))
}

func blackhole6(i int) netlink.Message {
	return W.Msg(uapi.RTM_NEWROUTE, W.Create, W.RtMsg{Family: uapi.AF_INET6, DstLen: 128, Table: uapi.RT_TABLE_MAIN,
		Protocol: uapi.RTPROT_STATIC, Type: uapi.RTN_BLACKHOLE}.Bytes(), W.IP(uapi.RTA_DST, dst6(i).String()))
}

func del4(i int) netlink.Message {
	return W.Msg(uapi.RTM_DELROUTE, W.Ack, W.RtMsg{Family: uapi.AF_INET, DstLen: 32, Table: uapi.RT_TABLE_MAIN,
		Scope: uapi.RT_SCOPE_NOWHERE}.Bytes(), W.IP(uapi.RTA_DST, dst4(i).String()))
}

func del6(i int) netlink.Message {
	return W.Msg(uapi.RTM_DELROUTE, W.Ack, W.RtMsg{Family: uapi.AF_INET6, DstLen: 128, Table: uapi.RT_TABLE_MAIN}.Bytes(),
		W.IP(uapi.RTA_DST, dst6(i).String()))
}

func dst4(i int) netip.Addr {
	return netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
}

func dst6(i int) netip.Addr {
	return netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 13: byte(i >> 16), 14: byte(i >> 8), 15: byte(i)})
}

// every7 builds n routes of fn, every seventh address, so that a change
// can fall between two of them.
func every7(n int, fn func(int) netlink.Message) func(W.Side, *netlink.Conn) error {
	return func(_ W.Side, a *netlink.Conn) error {
		return execAll(a, n, func(i int) netlink.Message { return fn(7 * i) })
	}
}

var dumpCases = []dumpCase{
	{
		// fib_table_dump resumes at the key it stopped at: a route added
		// behind it is not seen, and no flag is set (inet_dump_fib checks
		// no generation).
		name:   "route4-add-behind",
		build:  every7(1000, blackhole4),
		req:    routeDump(uapi.AF_INET),
		change: func(a *netlink.Conn) error { return execAck(a, blackhole4(3)) },
	},
	{
		// Ahead of the cursor, a removed route is missed and an added one
		// seen.
		name:  "route4-change-ahead",
		build: every7(1000, blackhole4),
		req:   routeDump(uapi.AF_INET),
		change: func(a *netlink.Conn) error {
			if err := execAck(a, del4(7*900)); err != nil {
				return err
			}
			return execAck(a, blackhole4(7*900+1))
		},
	},
	{
		// The IPv6 tree changed (its root's sernum moved): the walk
		// starts again at the root and skips as many nodes as it dumped;
		// the route added ahead is seen.
		name:   "route6-add-ahead",
		build:  every7(1000, blackhole6),
		req:    routeDump(uapi.AF_INET6),
		change: func(a *netlink.Conn) error { return execAck(a, blackhole6(7*900+1)) },
	},
	{
		// A delete leaves the sernum alone and moves the registered
		// walkers: nothing is skipped twice or missed.
		name:   "route6-delete-behind",
		build:  every7(1000, blackhole6),
		req:    routeDump(uapi.AF_INET6),
		change: func(a *netlink.Conn) error { return execAck(a, del6(7)) },
	},
	{
		// inet_dump_ifaddr checks inet_base_seq after each address: the
		// first datagram filled after the add is flagged.
		name: "addr4-add",
		build: func(_ W.Side, a *netlink.Conn) error {
			return execAll(a, 300, func(i int) netlink.Message {
				return addr4(uapi.RTM_NEWADDR, W.Create, 1, fmt.Sprintf("127.1.%d.%d", i/200, i%200+1), 32)
			})
		},
		req: addrDump(uapi.AF_INET),
		change: func(a *netlink.Conn) error {
			return execAck(a, addr4(uapi.RTM_NEWADDR, W.Create, 1, "127.2.0.1", 32))
		},
	},
	{
		// rtnl_dump_ifinfo checks dev_base_seq: the first datagram filled
		// after a device went is flagged.
		name: "links-del",
		build: func(_ W.Side, a *netlink.Conn) error {
			return execAll(a, 30, func(i int) netlink.Message {
				return vethAdd(W.Create, fmt.Sprintf("va%d", i), fmt.Sprintf("02:00:00:00:01:%02x", i),
					fmt.Sprintf("vb%d", i), fmt.Sprintf("02:00:00:00:02:%02x", i))
			})
		},
		req: W.Msg(uapi.RTM_GETLINK, W.Dump, W.IfInfo{}.Bytes()),
		change: func(a *netlink.Conn) error {
			return execAck(a, W.Msg(uapi.RTM_DELLINK, W.Ack, W.IfInfo{}.Bytes(), W.Str(uapi.IFLA_IFNAME, "va28")))
		},
		intrOnly: true,
	},
	{
		// dump_rules resumes by position and checks nothing.
		name: "rules-add",
		build: func(_ W.Side, a *netlink.Conn) error {
			return execAll(a, 1000, func(i int) netlink.Message {
				return rule(uapi.RTM_NEWRULE, W.Create, W.RuleMsg{Family: uapi.AF_INET, Table: 100, Action: 1},
					W.U32(uapi.FRA_PRIORITY, uint32(1000+i)))
			})
		},
		req: ruleDump(uapi.AF_INET),
		change: func(a *netlink.Conn) error {
			return execAck(a, rule(uapi.RTM_NEWRULE, W.Create, W.RuleMsg{Family: uapi.AF_INET, Table: 100, Action: 1},
				W.U32(uapi.FRA_PRIORITY, 5000)))
		},
	},
	{
		// rtm_dump_nexthop checks net->nexthop.seq at the end of each
		// datagram.
		name: "nexthops-add",
		build: func(_ W.Side, a *netlink.Conn) error {
			if err := execAck(a, linkUp(1)); err != nil {
				return err
			}
			return execAll(a, 2000, func(i int) netlink.Message {
				return nh(uapi.RTM_NEWNEXTHOP, W.Create, uapi.AF_INET, W.U32(uapi.NHA_ID, uint32(i+1)), W.Flag(uapi.NHA_BLACKHOLE))
			})
		},
		req: W.Msg(uapi.RTM_GETNEXTHOP, W.Dump, W.NhMsg{}.Bytes()),
		change: func(a *netlink.Conn) error {
			return execAck(a, nh(uapi.RTM_NEWNEXTHOP, W.Create, uapi.AF_INET, W.U32(uapi.NHA_ID, 5000), W.Flag(uapi.NHA_BLACKHOLE)))
		},
	},
}

// runDumpCase plays c on side and returns its record.
func runDumpCase(side W.Side, c dumpCase) (string, error) {
	a, err := side.Dial()
	if err != nil {
		return "", err
	}
	defer a.Close()
	if err := c.build(side, a); err != nil {
		return "", fmt.Errorf("build: %w", err)
	}
	d, err := side.Dial()
	if err != nil {
		return "", err
	}
	defer d.Close()
	ds := W.SocketOf(d)
	req := c.req
	req.Header.Sequence, req.Header.PID, req.Header.Length = 1, d.PID(), uint32(16+len(req.Data))
	if err := ds.Send(req); err != nil {
		return "", err
	}
	var out strings.Builder
	for part := 1; ; part++ {
		if err := d.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
			return out.String(), err
		}
		msgs, err := ds.Receive()
		if err != nil {
			return out.String(), err
		}
		bytes, done := 0, ""
		var intr []int
		for i, m := range msgs {
			bytes += (int(m.Header.Length) + 3) &^ 3
			if m.Header.Flags&uapi.NLM_F_DUMP_INTR != 0 {
				intr = append(intr, i)
			}
			if m.Header.Type == netlink.Done && len(m.Data) >= 4 {
				done = fmt.Sprintf(" DONE errno=%d", int32(le32(m.Data)))
			}
		}
		switch {
		case !c.intrOnly:
			fmt.Fprintf(&out, "part %d: %d messages, %d bytes", part, len(msgs), bytes)
			if len(intr) > 0 {
				fmt.Fprintf(&out, ", DUMP_INTR on %v", intr)
			}
			out.WriteString(done + "\n")
		case len(intr) > 0:
			fmt.Fprintf(&out, "part %d: DUMP_INTR on %v\n", part, intr)
		case done != "":
			out.WriteString("end:" + done + "\n")
		}
		if done != "" {
			return out.String(), nil
		}
		if part == 2 {
			if err := c.change(a); err != nil {
				return out.String(), fmt.Errorf("change: %w", err)
			}
			out.WriteString("(change after part 2)\n")
		}
	}
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// sameSkbLayout reports whether this machine splits dumps as the records
// were made: x86-64 with 4 KiB pages.
func sameSkbLayout() bool { return runtime.GOARCH == "amd64" && os.Getpagesize() == 4096 }

func dumpPartsPath(name string) string { return filepath.Join("testdata", "dumpparts", name+".txt") }

// TestDumpParts compares nlwire's record of each case with the real
// kernel's kept one (rewritten first with -update).
func TestDumpParts(t *testing.T) {
	for _, c := range dumpCases {
		t.Run(c.name, func(t *testing.T) {
			if *update {
				if !sameSkbLayout() {
					t.Skip("the records are of x86-64 with 4 KiB pages")
				}
				real, err := W.NewReal()
				if err != nil {
					t.Skipf("no real kernel namespace: %v", err)
				}
				got, err := runDumpCase(real, c)
				real.Close()
				require.NoError(t, err, "real kernel:\n%s", got)
				require.NoError(t, os.MkdirAll(filepath.Dir(dumpPartsPath(c.name)), 0o755))
				require.NoError(t, os.WriteFile(dumpPartsPath(c.name), []byte(got), 0o644))
			}
			want, err := os.ReadFile(dumpPartsPath(c.name))
			require.NoError(t, err)
			got, err := runDumpCase(W.NewSim(nlwire.Dial), c)
			require.NoError(t, err, "nlwire:\n%s", got)
			if d := linediff.Unified(string(want), got); d != "" {
				t.Errorf("nlwire's dump differs from the kernel's (- kernel, + nlwire):\n%s", d)
			}
		})
	}
}

// TestDumpPartsRealKernel checks that the running kernel still dumps as
// the kept records say (skipped without root).
func TestDumpPartsRealKernel(t *testing.T) {
	if *update {
		t.Skip("-update rewrites the records")
	}
	if !sameSkbLayout() {
		t.Skip("the records are of x86-64 with 4 KiB pages")
	}
	for _, c := range dumpCases {
		t.Run(c.name, func(t *testing.T) {
			real, err := W.NewReal()
			if err != nil {
				t.Skipf("no real kernel namespace: %v", err)
			}
			defer real.Close()
			want, err := os.ReadFile(dumpPartsPath(c.name))
			require.NoError(t, err)
			got, err := runDumpCase(real, c)
			require.NoError(t, err, "real kernel:\n%s", got)
			if d := linediff.Unified(string(want), got); d != "" {
				t.Errorf("the running kernel differs from the record (- record, + kernel):\n%s", d)
			}
		})
	}
}
