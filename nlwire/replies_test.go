package nlwire

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// The files of testdata/kernelreplies are what Linux 6.18 answered on a
// NETLINK_ROUTE socket (NETLINK_EXT_ACK on) in a fresh network namespace:
//
//	# sh ip ...                  a command run first (here: by iproute)
//	strict 0|1                   NETLINK_GET_STRICT_CHK from now on
//	echo ## NAME                 the name of the next request
//	> req TYPE FLAGS HEX         a request: its type, flags and payload
//	< t=T f=F seq=S pid=P HEX    a message the kernel sent back
//
// replayKernelReplies sends every request to the handlers, as the socket
// would dispatch it, and checks the answers: each reply message's type
// and bytes, and the error's errno, extack message and attribute offset.

// A kernelExchange is one request of a transcript and its answer.
type kernelExchange struct {
	name        string
	strict      bool
	typ, flags  uint16
	body        []byte
	replies     []netlink.Message // answers other than NLMSG_ERROR / NLMSG_DONE
	errno       syscall.Errno     // of the final NLMSG_ERROR or NLMSG_DONE
	msg         string            // NLMSGERR_ATTR_MSG
	off         int               // NLMSGERR_ATTR_OFFS, or -1
	setupBefore []string          // ip commands to run before it
}

func readKernelReplies(t *testing.T, file string) []*kernelExchange {
	f, err := os.Open(filepath.Join("testdata", "kernelreplies", file))
	require.NoError(t, err)
	defer f.Close()
	var out []*kernelExchange
	var cur *kernelExchange
	var setup []string
	strict, name := false, ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fs := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "# sh ip "):
			cmd, _, _ := strings.Cut(strings.TrimPrefix(line, "# sh ip "), " -> ")
			setup = append(setup, cmd)
		case strings.HasPrefix(line, "strict "):
			strict = fs[1] == "1"
		case strings.HasPrefix(line, "echo ## "):
			name = strings.TrimPrefix(line, "echo ## ")
		case strings.HasPrefix(line, "> req "):
			typ, _ := strconv.ParseUint(fs[2], 0, 16)
			fl, _ := strconv.ParseUint(fs[3], 0, 16)
			var body []byte
			if len(fs) > 4 {
				body, _ = hex.DecodeString(fs[4])
			}
			cur = &kernelExchange{name: name, strict: strict, typ: uint16(typ), flags: uint16(fl), body: body, off: -1, setupBefore: setup}
			setup = nil
			out = append(out, cur)
		case strings.HasPrefix(line, "< t="):
			typ, _ := strconv.Atoi(strings.TrimPrefix(fs[1], "t="))
			fl, _ := strconv.ParseUint(strings.TrimPrefix(fs[2], "f="), 0, 16)
			data, _ := hex.DecodeString(fs[5])
			switch typ {
			case uapi.NLMSG_ERROR, uapi.NLMSG_DONE:
				cur.errno, cur.msg, cur.off = decodeKernelError(uint16(typ), uint16(fl), data)
			default:
				cur.replies = append(cur.replies, netlink.Message{
					Header: netlink.Header{Type: netlink.HeaderType(typ), Flags: netlink.HeaderFlags(fl)},
					Data:   data,
				})
			}
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// decodeKernelError reads an NLMSG_ERROR or NLMSG_DONE payload: the
// negated errno, then (for NLMSG_ERROR) the request echoed whole or only
// its header (NLM_F_CAPPED), then the extack attributes
// (NLM_F_ACK_TLVS).
func decodeKernelError(typ, flags uint16, data []byte) (syscall.Errno, string, int) {
	en := syscall.Errno(-int32(binary.LittleEndian.Uint32(data)))
	if flags&uapi.NLM_F_ACK_TLVS == 0 {
		return en, "", -1
	}
	pos := 4
	if typ == uapi.NLMSG_ERROR {
		if flags&uapi.NLM_F_CAPPED != 0 {
			pos += 16
		} else {
			pos += (int(binary.LittleEndian.Uint32(data[4:])) + 3) &^ 3
		}
	}
	ad, err := netlink.NewAttributeDecoder(data[pos:])
	if err != nil {
		panic(err)
	}
	msg, off := "", -1
	for ad.Next() {
		switch ad.Type() {
		case uapi.NLMSGERR_ATTR_MSG:
			msg = ad.String()
		case uapi.NLMSGERR_ATTR_OFFS:
			off = int(ad.Uint32())
		}
	}
	return en, msg, off
}

// serveForTest dispatches a request to the handlers as rtnetlink_rcv_msg
// does: the family's handler or the PF_UNSPEC one, dumpit for a GET with
// NLM_F_DUMP, EOPNOTSUPP without one.
func serveForTest(h *rtnl.Handle, x *kernelExchange) ([]netlink.Message, error) {
	r := &request{h: h, hdr: netlink.Header{Type: netlink.HeaderType(x.typ), Flags: netlink.HeaderFlags(x.flags)}, body: x.body, strict: x.strict}
	hd, ok := handlers[handlerKey{r.family(), rt.MsgType(x.typ)}]
	if !ok {
		hd, ok = handlers[handlerKey{0, rt.MsgType(x.typ)}]
	}
	fn := hd.do
	if x.typ&3 == 2 && x.flags&uapi.NLM_F_DUMP == uapi.NLM_F_DUMP && hd.dump != nil {
		fn = func(r *request) ([]netlink.Message, error) { return drainDump(hd.dump(r)) }
	} else if x.typ&3 == 2 && x.flags&uapi.NLM_F_DUMP == uapi.NLM_F_DUMP {
		fn = nil
	}
	if !ok || fn == nil {
		return nil, errno.New(syscall.EOPNOTSUPP, "")
	}
	return fn(r)
}

// kernelDifference is an answer netsim knowingly gives differently: the
// errno and message it gives instead.
type kernelDifference struct {
	errno syscall.Errno
	msg   string
}

// replayKernelReplies checks the handlers against a transcript. skip
// names requests the socket itself answers; differ names those netsim
// answers otherwise on purpose; filter drops kernel messages netsim does
// not model; normalise clears bytes that depend on time.
func replayKernelReplies(t *testing.T, file string, skip map[string]bool, differ map[string]kernelDifference,
	filter func(netlink.Message) bool, normalise func(*netlink.Message)) {
	k := rtnl.MustNewKernel(rtnl.After)
	task := k.World().NewTask("nl")
	ip := iproute.New(k, task)
	h := k.InitNet().Handle(task)
	for _, x := range readKernelReplies(t, file) {
		for _, cmd := range x.setupBefore {
			require.NoError(t, ip.Run(strings.Fields(cmd)...), cmd)
		}
		if skip[x.name] {
			continue
		}
		what := fmt.Sprintf("%s: %s", file, x.name)
		got, err := serveForTest(h, x)
		if d, ok := differ[x.name]; ok {
			var e *errno.Error
			require.ErrorAs(t, err, &e, what)
			require.Equal(t, d, kernelDifference{e.Errno, e.Msg}, what)
			continue
		}
		var want []netlink.Message
		isGet := x.typ&3 == 2
		for _, m := range x.replies {
			if isGet && (filter == nil || filter(m)) {
				want = append(want, m) // a NEW/DEL's echo is the socket's
			}
		}
		if x.errno == 0 {
			require.NoError(t, err, what)
		} else {
			var e *errno.Error
			require.ErrorAs(t, err, &e, what)
			require.Equal(t, x.errno, e.Errno, what)
			require.Equal(t, x.msg, e.Msg, what)
			require.Equal(t, x.off, errOffset(err), what)
			continue
		}
		require.Len(t, got, len(want), what)
		for i := range want {
			g := got[i]
			if normalise != nil {
				normalise(&g)
				normalise(&want[i])
			}
			require.Equal(t, want[i].Header.Type, g.Header.Type, what)
			require.Equal(t, hex.EncodeToString(want[i].Data), hex.EncodeToString(g.Data), "%s: message %d", what, i)
		}
	}
}
