package wiretest

import (
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
)

// fakeSocket is a netlink.Socket that records what it is given.
type fakeSocket struct{ sent []netlink.Message }

func (f *fakeSocket) Close() error                 { return nil }
func (f *fakeSocket) Send(m netlink.Message) error { f.sent = append(f.sent, m); return nil }
func (f *fakeSocket) SendMessages(m []netlink.Message) error {
	f.sent = append(f.sent, m...)
	return nil
}
func (f *fakeSocket) Receive() ([]netlink.Message, error) { return nil, nil }

// TestSocketOf fails if mdlayher/netlink's Conn no longer keeps its
// Socket where SocketOf looks for it.
func TestSocketOf(t *testing.T) {
	f := &fakeSocket{}
	c := netlink.NewConn(f, 7)
	require.Same(t, f, SocketOf(c).(*fakeSocket))
}

// TestCanon renders a request, an ack with an extended ack, and a route
// with a normalised attribute.
func TestCanon(t *testing.T) {
	ports := func(p uint32) string {
		if p == 7 {
			return "A"
		}
		return "?"
	}
	m := fix(Msg(uapi.RTM_NEWROUTE, Create, RtMsg{Family: uapi.AF_INET, DstLen: 24, Table: uapi.RT_TABLE_MAIN, Type: uapi.RTN_UNICAST}.Bytes(),
		IP(uapi.RTA_DST, "192.0.2.0"), U32(uapi.RTA_OIF, 3), Attr{uapi.RTA_EXPIRES, make([]byte, 8)}), 5, 7)
	require.Equal(t, "NEWROUTE flags=REQUEST|ACK|EXCL|CREATE seq=5 port=A family=inet dst_len=24 src_len=0 tos=0 table=254 "+
		"protocol=0 scope=universe type=UNICAST flags=0 DST=192.0.2.0 OIF=3 EXPIRES=*", Canon(m, ports))

	req, err := m.MarshalBinary()
	require.NoError(t, err)
	data := append([]byte{0xea, 0xff, 0xff, 0xff}, req...) // -EINVAL, the request echoed
	data = append(data, encodeAttrs([]Attr{Str(1, "Invalid prefix length"), U32(2, 20)})...)
	e := netlink.Message{Header: netlink.Header{Type: netlink.Error, Flags: netlink.AcknowledgeTLVs, Sequence: 5, PID: 7}, Data: data}
	require.Equal(t, `ERROR flags=ACK_TLVS seq=5 port=A errno=EINVAL req={NEWROUTE flags=REQUEST|ACK|EXCL|CREATE len=56 seq=5 port=A} `+
		`echoed=56 MSG="Invalid prefix length" OFFS=20`, Canon(e, ports))
	require.Equal(t, "Invalid prefix length", extackMsg(e))
}
