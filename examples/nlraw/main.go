// Nlraw speaks rtnetlink with github.com/mdlayher/netlink alone, the way
// low-level tools do: it builds the messages' bytes with an
// AttributeEncoder, dumps the links and adds an address, decoding the
// answers with an AttributeDecoder. Run as root it works on the machine's
// kernel; its test runs the same functions against nlwire, without root.
package main

import (
	"encoding/binary"
	"fmt"
	"log"
	"net/netip"

	"github.com/mdlayher/netlink"
)

// The Linux ABI numbers the tool uses (golang.org/x/sys/unix has them
// only on Linux).
const (
	netlinkRoute = 0  // NETLINK_ROUTE
	rtmGetLink   = 18 // RTM_GETLINK
	rtmNewAddr   = 20 // RTM_NEWADDR
	iflaIfname   = 3  // IFLA_IFNAME
	iflaMTU      = 4  // IFLA_MTU
	ifaLocal     = 2  // IFA_LOCAL
	ifaAddress   = 1  // IFA_ADDRESS
	afInet       = 2  // AF_INET
	afInet6      = 10 // AF_INET6
)

// Link is what Links reports of a device.
type Link struct {
	Index int32
	Name  string
	MTU   uint32
}

// Links dumps the devices (RTM_GETLINK with NLM_F_DUMP).
func Links(c *netlink.Conn) ([]Link, error) {
	msgs, err := c.Execute(netlink.Message{
		Header: netlink.Header{Type: rtmGetLink, Flags: netlink.Request | netlink.Dump},
		Data:   make([]byte, 16), // struct ifinfomsg, all zero
	})
	if err != nil {
		return nil, err
	}
	var out []Link
	for _, m := range msgs {
		if len(m.Data) < 16 {
			return nil, fmt.Errorf("short RTM_NEWLINK of %d bytes", len(m.Data))
		}
		l := Link{Index: int32(binary.NativeEndian.Uint32(m.Data[4:8]))}
		ad, err := netlink.NewAttributeDecoder(m.Data[16:])
		if err != nil {
			return nil, err
		}
		for ad.Next() {
			switch ad.Type() {
			case iflaIfname:
				l.Name = ad.String()
			case iflaMTU:
				l.MTU = ad.Uint32()
			}
		}
		if err := ad.Err(); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// AddAddr adds p to the device with ifindex index (RTM_NEWADDR with
// NLM_F_CREATE|NLM_F_EXCL, acknowledged).
func AddAddr(c *netlink.Conn, index int32, p netip.Prefix) error {
	fam := byte(afInet)
	if p.Addr().Is6() {
		fam = afInet6
	}
	hdr := []byte{fam, byte(p.Bits()), 0, 0}
	hdr = binary.NativeEndian.AppendUint32(hdr, uint32(index))
	ae := netlink.NewAttributeEncoder()
	ae.Bytes(ifaLocal, p.Addr().AsSlice())
	ae.Bytes(ifaAddress, p.Addr().AsSlice())
	attrs, err := ae.Encode()
	if err != nil {
		return err
	}
	_, err = c.Execute(netlink.Message{
		Header: netlink.Header{Type: rtmNewAddr, Flags: netlink.Request | netlink.Acknowledge | netlink.Create | netlink.Excl},
		Data:   append(hdr, attrs...),
	})
	return err
}

func main() {
	c, err := netlink.Dial(netlinkRoute, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	links, err := Links(c)
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range links {
		fmt.Printf("%d: %s mtu %d\n", l.Index, l.Name, l.MTU)
	}
}
