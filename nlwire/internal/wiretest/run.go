// Request sequences and their runs on a side (Linux over a real socket,
// or netsim), recorded as transcripts.

package wiretest

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unsafe"

	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/rtnl"
)

// A Seq is a named request sequence. A requesting socket (A) with Options
// set sends the steps' requests; a listening socket (L) joined to Groups
// receives the notifications.
type Seq struct {
	Name    string
	Doc     string               // what the sequence covers, the transcript's first line
	Options []netlink.ConnOption // enabled on A before the first step
	Groups  []uint32             // RTNLGRP_* numbers L joins
	Steps   []Step
}

// A Step is one action of a sequence; the fields that are set say which.
type Step struct {
	Note string // a comment printed before the step

	// Send is a request A sends. Its sequence number is the step's number
	// and its port id A's unless set; its length the message's unless set
	// (a sequence may lie about it).
	Send netlink.Message

	// SendPID, when set, builds the request A sends from the process id
	// of a process in the side's namespace (NETNSA_PID, IFLA_NET_NS_PID),
	// which differs between the sides.
	SendPID func(pid uint32) netlink.Message

	// Batch are requests A sends in one datagram, all with the step's
	// sequence number: the transcript shows how many, the first and the
	// last. (Without NLM_F_ACK only their errors answer.)
	Batch []netlink.Message

	// Handle, with Send, makes the request through the simulated kernel's
	// API (rtnl.Handle) instead of a socket: a change from no socket. The
	// real kernel gets Send through a socket of its own, with sequence
	// number 0; its port prints as 0, a request from no socket.
	Handle func(h *rtnl.Handle) error

	Sysctl [2]string // a sysctl of the namespace: key, value

	Option *Option // a socket option of A
	Join   uint32  // a group A joins
}

// An Option is a socket option A enables or disables.
type Option struct {
	Opt netlink.ConnOption
	On  bool
}

// DefaultSettle is how long a side lets the kernel's deferred work run
// after most steps (see SettleTime).
const DefaultSettle = 50 * time.Millisecond

// SettleTime is how long the kernel's deferred work (linkwatch, IPv6
// address configuration, DAD without probes) has after step s, base after
// most: they run from work queues within milliseconds, except a new
// device's first operstate change, which linkwatch defers up to a second
// (linkwatch_urgent_event is false for a device that is not running;
// net/core/link_watch.c). Both sides wait as long, the real kernel in
// wall time, the simulated one in virtual time, so that what comes due
// later (an address lifetime's end) comes on neither.
func SettleTime(s Step, base time.Duration) time.Duration {
	if s.Send.Header.Type == rtmNewLink && s.Send.Header.Flags&netlink.Create != 0 {
		return 1100 * time.Millisecond
	}
	return base
}

const rtmNewLink = 16 // RTM_NEWLINK

// A Side is a kernel a sequence runs on: the real one or a simulated one.
type Side interface {
	// Dial opens a NETLINK_ROUTE socket in the side's namespace.
	Dial() (*netlink.Conn, error)
	// Sysctl sets a sysctl of the namespace (dotted key).
	Sysctl(key, value string) error
	// Call serves a Handle step and returns its error.
	Call(s Step) error
	// CallPort is the port id of the notifications a Handle step causes.
	CallPort() uint32
	// SelfPID is the process id of a process in the side's namespace.
	SelfPID() uint32
	// Settle waits until the kernel's deferred work that step s
	// triggered is done.
	Settle(s Step)
	// Drain returns the messages waiting on c, without blocking.
	Drain(c *netlink.Conn) ([]netlink.Message, error)
	// Close releases the namespace.
	Close() error
}

// Run plays seq on side and returns its transcript.
func Run(side Side, seq Seq) (string, error) {
	a, err := side.Dial()
	if err != nil {
		return "", fmt.Errorf("dial A: %w", err)
	}
	defer a.Close()
	l, err := side.Dial()
	if err != nil {
		return "", fmt.Errorf("dial L: %w", err)
	}
	defer l.Close()
	for _, o := range seq.Options {
		if err := a.SetOption(o, true); err != nil {
			return "", fmt.Errorf("option %d: %w", o, err)
		}
	}
	for _, g := range seq.Groups {
		if err := l.JoinGroup(g); err != nil {
			return "", fmt.Errorf("join %d: %w", g, err)
		}
	}
	ports := func(p uint32) string {
		switch p {
		case a.PID():
			return "A"
		case l.PID():
			return "L"
		case 0, side.CallPort():
			return "0"
		}
		return "?"
	}
	var out strings.Builder
	fmt.Fprintf(&out, "# %s\n", seq.Doc)
	for i, st := range seq.Steps {
		if st.Note != "" {
			fmt.Fprintf(&out, "# %s\n", st.Note)
		}
		if err := step(side, a, uint32(i+1), st, ports, &out); err != nil {
			return out.String(), fmt.Errorf("step %d: %w", i+1, err)
		}
		side.Settle(st)
		for _, c := range []struct {
			name string
			conn *netlink.Conn
		}{{"A", a}, {"L", l}} {
			msgs, err := side.Drain(c.conn)
			if err != nil {
				return out.String(), fmt.Errorf("step %d: drain %s: %w", i+1, c.name, err)
			}
			for _, m := range msgs {
				fmt.Fprintf(&out, "%s %s\n", c.name, shorten(Canon(m, ports)))
			}
		}
	}
	return out.String(), nil
}

func step(side Side, a *netlink.Conn, seq uint32, st Step, ports func(uint32) string, out *strings.Builder) error {
	switch {
	case st.Sysctl[0] != "":
		fmt.Fprintf(out, "> sysctl %s=%s\n", st.Sysctl[0], st.Sysctl[1])
		return side.Sysctl(st.Sysctl[0], st.Sysctl[1])
	case st.Option != nil:
		fmt.Fprintf(out, "> option %s %v\n", optionNames[st.Option.Opt], st.Option.On)
		return a.SetOption(st.Option.Opt, st.Option.On)
	case st.Join != 0:
		fmt.Fprintf(out, "> A joins group %d\n", st.Join)
		return a.JoinGroup(st.Join)
	case len(st.Batch) > 0:
		ms := make([]netlink.Message, len(st.Batch))
		for i, m := range st.Batch {
			ms[i] = fix(m, seq, a.PID())
		}
		fmt.Fprintf(out, "> A batch of %d: %s ... %s\n", len(ms), shorten(Canon(ms[0], ports)), shorten(Canon(ms[len(ms)-1], ports)))
		return SocketOf(a).SendMessages(ms)
	case st.Handle != nil:
		m := fix(st.Send, 0, 0)
		fmt.Fprintf(out, "> H %s\n", shorten(Canon(m, ports)))
		err := side.Call(Step{Send: m, Handle: st.Handle})
		fmt.Fprintf(out, "H %s\n", callResult(err))
		return nil
	default:
		if st.SendPID != nil {
			st.Send = st.SendPID(side.SelfPID())
		}
		m := fix(st.Send, seq, a.PID())
		fmt.Fprintf(out, "> A %s\n", shorten(Canon(m, ports)))
		return SocketOf(a).Send(m)
	}
}

// maxLine is the longest canonical message a transcript shows whole.
const maxLine = 4096

// shorten keeps a canonical message longer than maxLine to its first 200
// characters, then its length and the SHA-256 of the whole (a group of
// thousands of members, a route of thousands of paths): transcripts stay
// readable, and two sides compare exactly.
func shorten(s string) string {
	if len(s) <= maxLine {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%s ... (%d characters, sha256 %x)", s[:200], len(s), sum[:12])
}

var optionNames = map[netlink.ConnOption]string{
	netlink.ExtendedAcknowledge: "NETLINK_EXT_ACK", netlink.CapAcknowledge: "NETLINK_CAP_ACK",
	netlink.GetStrictCheck: "NETLINK_GET_STRICT_CHK", netlink.BroadcastError: "NETLINK_BROADCAST_ERROR",
	netlink.NoENOBUFS: "NETLINK_NO_ENOBUFS",
}

// fix fills in a request's length, sequence number and port id where the
// sequence left them zero.
func fix(m netlink.Message, seq, port uint32) netlink.Message {
	if m.Header.Length == 0 {
		m.Header.Length = uint32(16 + (len(m.Data)+3)&^3)
	} else if int(m.Header.Length) < 16+len(m.Data) {
		m.Data = m.Data[:max(int(m.Header.Length)-16, 0)]
	}
	if m.Header.Sequence == 0 {
		m.Header.Sequence = seq
	}
	if m.Header.PID == 0 {
		m.Header.PID = port
	}
	return m
}

// SocketOf returns the Socket under c, whose Send and Receive take and
// return messages as they are, errors included (Conn.Receive turns an
// error message into an error and drops what came with it). Conn keeps it
// in an unexported field: this is the one place that reaches for it, for
// mdlayher/netlink v1.9.0 (go.mod pins it); TestSocketOf fails if the
// field goes.
func SocketOf(c *netlink.Conn) netlink.Socket {
	v := reflect.ValueOf(c).Elem().FieldByName("sock")
	if !v.IsValid() || v.Type() != reflect.TypeFor[netlink.Socket]() {
		panic("wiretest: netlink.Conn has no sock field of type Socket: mdlayher/netlink's layout changed")
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem().Interface().(netlink.Socket)
}

// Drain returns the messages waiting on c, a simulated socket
// (nlwire.Socket), reading while it is Readable: its answers are queued
// by the time Send returns, so no wait on the clock is needed.
func Drain(c *netlink.Conn) ([]netlink.Message, error) {
	s, ok := SocketOf(c).(*nlwire.Socket)
	if !ok {
		return nil, fmt.Errorf("wiretest: Drain needs a simulated socket, not %T", SocketOf(c))
	}
	var out []netlink.Message
	for s.Readable() {
		msgs, err := s.Receive()
		if err != nil {
			return out, err
		}
		out = append(out, msgs...)
	}
	return out, nil
}

// parseMessages splits a datagram into its messages.
func parseMessages(b []byte) ([]netlink.Message, error) {
	var out []netlink.Message
	for len(b) >= 16 {
		n := int(binary.LittleEndian.Uint32(b))
		if n < 16 || n > len(b) {
			return out, fmt.Errorf("bad message length %d of %d", n, len(b))
		}
		m := netlink.Message{Header: netlink.Header{
			Length:   uint32(n),
			Type:     netlink.HeaderType(binary.LittleEndian.Uint16(b[4:])),
			Flags:    netlink.HeaderFlags(binary.LittleEndian.Uint16(b[6:])),
			Sequence: binary.LittleEndian.Uint32(b[8:]),
			PID:      binary.LittleEndian.Uint32(b[12:]),
		}, Data: append([]byte{}, b[16:n]...)}
		out = append(out, m)
		adv := (n + 3) &^ 3
		if adv > len(b) {
			adv = len(b)
		}
		b = b[adv:]
	}
	return out, nil
}

// extackMsg returns the NLMSGERR_ATTR_MSG of an error message, or "".
func extackMsg(m netlink.Message) string {
	d := m.Data
	if m.Header.Flags&netlink.AcknowledgeTLVs == 0 || len(d) < 20 {
		return ""
	}
	echoed := 16
	if m.Header.Flags&netlink.Capped == 0 {
		echoed = int(binary.LittleEndian.Uint32(d[4:]))
	}
	if 4+echoed > len(d) {
		return ""
	}
	ad, err := netlink.NewAttributeDecoder(d[4+(echoed+3)&^3:])
	if err != nil {
		return ""
	}
	for ad.Next() {
		if ad.Type() == 1 { // NLMSGERR_ATTR_MSG
			return ad.String()
		}
	}
	return ""
}
