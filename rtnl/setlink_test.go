package rtnl_test

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// setlinkRig is a rig with a veth pair v0/v1 and a bridge br0, the
// namespace the real kernel's answers below were taken in (Linux 6.18,
// raw RTM_NEWLINK and RTM_SETLINK requests).
func setlinkRig(t *testing.T) *rig {
	r := newRig(t, rtnl.Config{})
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "v0", Peer: "v1"}))
	r.ok(r.h.LinkAdd(netdev.Bridge{Name: "br0"}))
	return r
}

func (r *rig) info(name string) rtnl.LinkInfo {
	r.tb.Helper()
	li, err := r.h.LinkByName(name)
	require.NoError(r.tb, err)
	return li
}

func ptr[T any](v T) *T { return &v }

func TestLinkNewCreatesWithFlagsAndMaster(t *testing.T) {
	r := setlinkRig(t)
	br := r.info("br0").Index
	r.ok(r.h.NewLink(rtnl.LinkRequest{
		Name: "a0", Flags: rt.NLMCreate | rt.NLMExcl,
		Spec:   netdev.Veth{Name: "a0", Peer: "a1"},
		Change: rtnl.LinkChange{SetFlags: true, Flags: netdev.FlagUp, Change: netdev.FlagUp, Master: &br},
	}))
	a0 := r.info("a0")
	assert.True(t, a0.Flags&netdev.FlagUp != 0)
	assert.Equal(t, "br0", a0.Master)
	a1 := r.info("a1")
	assert.True(t, a1.Flags&netdev.FlagUp == 0, "the request's flags are the device's, not its peer's")
	assert.Equal(t, "", a1.Master)

	// A master that does not exist: EINVAL, and the new pair is gone.
	err := r.h.NewLink(rtnl.LinkRequest{
		Name: "b0", Flags: rt.NLMCreate | rt.NLMExcl,
		Spec:   netdev.Veth{Name: "b0", Peer: "b1"},
		Change: rtnl.LinkChange{Master: ptr(netdev.IfIndex(99))},
	})
	requireErr(t, err, syscall.EINVAL, "")
	for _, n := range []string{"b0", "b1"} {
		_, err := r.h.LinkByName(n)
		assert.Equal(t, syscall.ENODEV, errno.Of(err), n)
	}
}

func TestLinkNewExistingDevice(t *testing.T) {
	r := setlinkRig(t)
	spec := netdev.Veth{Name: "v0", Peer: "x1"}
	// rtnl_changelink: NLM_F_EXCL is EEXIST, NLM_F_REPLACE EOPNOTSUPP,
	// both bare, whether the device is named or indexed.
	requireErr(t, r.h.NewLink(rtnl.LinkRequest{Name: "v0", Flags: rt.NLMCreate | rt.NLMExcl, Spec: spec}), syscall.EEXIST, "")
	requireErr(t, r.h.NewLink(rtnl.LinkRequest{Index: r.info("v0").Index, Flags: rt.NLMCreate | rt.NLMExcl, Spec: spec}), syscall.EEXIST, "")
	requireErr(t, r.h.NewLink(rtnl.LinkRequest{Name: "v0", Flags: rt.NLMCreate | rt.NLMReplace, Spec: spec}), syscall.EOPNOTSUPP, "")
	// Without NLM_F_EXCL an existing device is changed, NLM_F_CREATE or not.
	r.ok(r.h.NewLink(rtnl.LinkRequest{Name: "v0", Flags: rt.NLMCreate, Spec: spec, Change: rtnl.LinkChange{MTU: ptr(1400)}}))
	assert.Equal(t, 1400, r.info("v0").MTU)
	_, err := r.h.LinkByName("x1")
	assert.Equal(t, syscall.ENODEV, errno.Of(err), "nothing created")
	// A device that does not exist, without NLM_F_CREATE: ENODEV.
	requireErr(t, r.h.NewLink(rtnl.LinkRequest{Name: "nope"}), syscall.ENODEV, "Cannot find device \"nope\"")
	requireErr(t, r.h.NewLink(rtnl.LinkRequest{Index: 99}), syscall.ENODEV, "No device with ifindex 99")
	requireErr(t, r.h.NewLink(rtnl.LinkRequest{Name: "nope", Group: ptr(uint32(5))}), syscall.ENODEV, "Cannot find device \"nope\"")
	requireErr(t, r.h.NewLink(rtnl.LinkRequest{Index: -5}), syscall.EINVAL, "ifindex can't be negative")
	// NLM_F_CREATE without a kind.
	requireErr(t, r.h.NewLink(rtnl.LinkRequest{Name: "x0", Flags: rt.NLMCreate | rt.NLMExcl}), syscall.EOPNOTSUPP, "Unknown device type")
}

func TestLinkNewGroupChange(t *testing.T) {
	r := setlinkRig(t)
	r.ok(r.h.SetLink(rtnl.LinkRequest{Name: "v1", Change: rtnl.LinkChange{Group: ptr(uint32(5))}}))
	// No device named: the devices of IFLA_GROUP are changed.
	r.ok(r.h.NewLink(rtnl.LinkRequest{Group: ptr(uint32(5)), Change: rtnl.LinkChange{MTU: ptr(1300)}}))
	assert.Equal(t, 1300, r.info("v1").MTU)
	assert.Equal(t, 1500, r.info("v0").MTU)
	// A group without devices: nothing to do, no error.
	r.ok(r.h.NewLink(rtnl.LinkRequest{Group: ptr(uint32(6)), Change: rtnl.LinkChange{MTU: ptr(1280)}}))
	assert.Equal(t, 1300, r.info("v1").MTU)
}

// TestLinkSetPartialApplication: do_setlink applies the attributes in its
// order and stops at the first that fails, leaving the earlier ones
// applied, as the real kernel did for the same requests.
func TestLinkSetPartialApplication(t *testing.T) {
	r := setlinkRig(t)
	v0 := r.info("v0").Index
	// `ip link set dev v0 mtu 1400 name bad/name`: EINVAL, MTU changed.
	err := r.h.SetLink(rtnl.LinkRequest{Index: v0, Change: rtnl.LinkChange{MTU: ptr(1400), Name: "bad/name"}})
	assert.Equal(t, syscall.EINVAL, errno.Of(err))
	li := r.info("v0")
	assert.Equal(t, 1400, li.MTU)
	// MTU, group, then a taken name: EEXIST, MTU and group changed.
	err = r.h.SetLink(rtnl.LinkRequest{Index: v0, Change: rtnl.LinkChange{MTU: ptr(1300), Group: ptr(uint32(3)), Name: "lo"}})
	assert.Equal(t, syscall.EEXIST, errno.Of(err))
	li = r.info("v0")
	assert.Equal(t, 1300, li.MTU)
	assert.Equal(t, uint32(3), li.Group)
	// MTU, up, then an unknown master: EINVAL, MTU and flags changed.
	err = r.h.SetLink(rtnl.LinkRequest{Index: v0, Change: rtnl.LinkChange{MTU: ptr(1200), SetFlags: true, Flags: netdev.FlagUp, Change: netdev.FlagUp, Master: ptr(netdev.IfIndex(99))}})
	requireErr(t, err, syscall.EINVAL, "")
	li = r.info("v0")
	assert.Equal(t, 1200, li.MTU)
	assert.True(t, li.Flags&netdev.FlagUp != 0)
	assert.Equal(t, "", li.Master)
	// A failing first attribute changes nothing.
	err = r.h.SetLink(rtnl.LinkRequest{Index: v0, Change: rtnl.LinkChange{MTU: ptr(10), Group: ptr(uint32(4))}})
	requireErr(t, err, syscall.EINVAL, "mtu less than device minimum")
	assert.Equal(t, uint32(3), r.info("v0").Group)
}

func TestLinkSetNaming(t *testing.T) {
	r := setlinkRig(t)
	// The kernel answers these bare: the messages are netsim's, and
	// HasExtack drops them from a netlink answer.
	requireErr(t, r.h.SetLink(rtnl.LinkRequest{Index: 99, Change: rtnl.LinkChange{MTU: ptr(1400)}}), syscall.ENODEV, "No device with ifindex 99")
	requireErr(t, r.h.SetLink(rtnl.LinkRequest{Name: "nope", Change: rtnl.LinkChange{MTU: ptr(1400)}}), syscall.ENODEV, "Cannot find device \"nope\"")
	requireErr(t, r.h.SetLink(rtnl.LinkRequest{Name: "", Change: rtnl.LinkChange{MTU: ptr(1400)}}), syscall.EINVAL, "Device name is required")
	assert.False(t, rtnl.HasExtack(syscall.ENODEV, "No device with ifindex 99"))
	assert.False(t, rtnl.HasExtack(syscall.ENODEV, "Cannot find device \"nope\""))
	assert.False(t, rtnl.HasExtack(syscall.EINVAL, "Device name is required"))
	// Named by name, IFLA_IFNAME is the name looked up, not a new one.
	r.ok(r.h.SetLink(rtnl.LinkRequest{Name: "v0", Change: rtnl.LinkChange{Name: "v0", MTU: ptr(1400)}}))
	assert.Equal(t, 1400, r.info("v0").MTU)
	// Named by ifindex, it renames.
	r.ok(r.h.SetLink(rtnl.LinkRequest{Index: r.info("v0").Index, Change: rtnl.LinkChange{Name: "w0"}}))
	assert.Equal(t, 1400, r.info("w0").MTU)
}

// A group or an alias that do_setlink sets announces the up device once,
// when the request ends, even if a later step fails (DO_SETLINK_NOTIFY).
func TestLinkSetGroupAnnounces(t *testing.T) {
	r := setlinkRig(t)
	r.ok(r.h.LinkSetUp("v0"))
	var got []rtnl.Notification
	cancel := r.k.InitNet().Subscribe(func(m rtnl.Notification) { got = append(got, m) })
	defer cancel()
	v0 := r.info("v0").Index
	r.ok(r.h.SetLink(rtnl.LinkRequest{Index: v0, Change: rtnl.LinkChange{Group: ptr(uint32(5)), Alias: ptr("a")}}))
	err := r.h.SetLink(rtnl.LinkRequest{Index: v0, Change: rtnl.LinkChange{Group: ptr(uint32(6)), Broadcast: &netdev.MAC{}}})
	require.Equal(t, syscall.EOPNOTSUPP, errno.Of(err))
	require.Len(t, got, 2)
	for _, m := range got {
		assert.Equal(t, rtnl.Notification{Type: rt.RTMNewLink, Link: m.Link}, m)
		assert.Equal(t, "v0", m.Link.Name)
	}
	assert.Equal(t, uint32(6), got[1].Link.Group)
}

// TestLowerByIndex: a macvlan's or vlan's lower device is named by
// ifindex (IFLA_LINK) when LinkIndex is set, by name otherwise; an ifindex
// no device has is a bare ENODEV, no lower at all EINVAL.
func TestLowerByIndex(t *testing.T) {
	r := setlinkRig(t)
	v0 := r.info("v0").Index
	r.ok(r.h.LinkAdd(netdev.Macvlan{Name: "m0", LinkIndex: v0}))
	r.ok(r.h.LinkAdd(netdev.Vlan{Name: "v0.5", LinkIndex: v0, ID: 5}))
	assert.Equal(t, "v0", r.info("m0").Link)
	assert.Equal(t, "v0", r.info("v0.5").Link)
	// The index wins over a name.
	r.ok(r.h.LinkAdd(netdev.Vlan{Name: "v0.6", Link: "v1", LinkIndex: v0, ID: 6}))
	assert.Equal(t, "v0", r.info("v0.6").Link)
	requireErr(t, r.h.LinkAdd(netdev.Macvlan{Name: "m1", LinkIndex: 99}), syscall.ENODEV, "")
	requireErr(t, r.h.LinkAdd(netdev.Macvlan{Name: "m1", LinkIndex: -1}), syscall.ENODEV, "")
	requireErr(t, r.h.LinkAdd(netdev.Vlan{Name: "v0.7", LinkIndex: 99, ID: 7}), syscall.ENODEV, "8021q: link does not exist")
	requireErr(t, r.h.LinkAdd(netdev.Vlan{Name: "v0.7", LinkIndex: -1, ID: 7}), syscall.ENODEV, "8021q: link does not exist")
	requireErr(t, r.h.LinkAdd(netdev.Macvlan{Name: "m1"}), syscall.EINVAL, "")
	requireErr(t, r.h.LinkAdd(netdev.Vlan{Name: "v0.7", ID: 7}), syscall.EINVAL, "8021q: link not specified")
}
