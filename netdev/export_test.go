package netdev

// IndexWalks returns how many IPv4 addresses and IPv6 multicast groups
// netsim itself examined walking the device's lists (see inDev.walked and
// mcList.walked).
func (d *Device) IndexWalks() (inet4, mc6 int64) {
	if d.inet != nil {
		inet4 = d.inet.walked
	}
	if d.inet6 != nil {
		mc6 = d.inet6.mc.walked
	}
	return inet4, mc6
}
