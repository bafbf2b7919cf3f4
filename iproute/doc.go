// Package iproute speaks the language of iproute2's `ip` command to a
// simulated kernel: it parses `ip` command lines and `ip -batch` scripts,
// executes them as rtnetlink requests on an rtnl.Handle, and prints what
// `ip` prints — show output, error messages, "Command failed FILE:LINE" and
// exit status — so that a script's stdout, stderr and exit status can be
// diffed byte for byte against a real kernel running the same script.
//
// An IP is one `ip` process: New binds it to a kernel and the task that
// runs it; Main takes the arguments of an `ip` command line (options such
// as -4, -6, -n NETNS, -force and -batch FILE included) and returns ip's exit
// status; Run executes one command without options; Batch runs a script.
//
//	k := rtnl.MustNewKernel(rtnl.After)
//	ip := iproute.New(k, k.World().NewTask("ip"))
//	ip.Stdout, ip.Stderr = os.Stdout, os.Stderr
//	status := ip.Main([]string{"-batch", "seed000.ip"})
//
// The supported subset: `link add/set/del/show` (dummy, veth, macvlan,
// vlan, bond, vrf; a kind Linux does not know is the kernel's "Unknown
// device type", one it has but netsim does not model is refused by name),
// `addr add/del/show/flush`, `route
// add/append/replace/prepend/change/test/del/get/show/flush` (printed with
// -j, -p, -o, -d and -s as ip prints them, but for route get's -s, whose
// reference counts of cached routes netsim does not keep), `nexthop
// add/replace/del/get/show/flush` (hash-threshold and resilient groups, fdb
// nexthops) and `nexthop bucket show/get`, `rule add/del/show/flush`, `maddr
// add/del/show`, `netns add/del/list/list-id/identify/pids/exec` (exec runs
// ip or sysctl in the namespace) and `neigh show` (netsim keeps no
// neighbour tables: it lists nothing), with the keywords and abbreviations
// ip accepts
// (ip compares a word with a keyword by prefix, in its own order of
// keywords: `ip a` is address, `ip r` route, `ip ru` rule, `ip n` neighbor).
//
// Errors are printed the way ip prints them: "Error: <extack message>."
// when the kernel attached a message, "RTNETLINK answers: <strerror>" when
// it did not, and ip's own messages (`Cannot find device "x"`, `Error:
// argument "x" is wrong: ...`) for what ip rejects before asking the
// kernel. As in ip, an argument error (ip's invarg and duparg) ends the
// whole process, -force or not; any other failed command of a batch prints
// "Command failed FILE:LINE" and stops the batch unless -force is given.
//
// Where the output is not iproute2's: netsim has no IPv6 routes, so `ip -6
// route` shows none and `ip route show table all` only IPv4's; options that
// only format (-s, -d, -o, -j, -br) are refused by name by the objects
// that do not print through the printer yet; keywords netsim does not model
// (route encapsulations, address metrics, anycast and the flags home,
// mngtmpaddr, optimistic and autojoin; link trailers, dynamic, carrier,
// broadcast, netns, queues, offloads, xdp, vf, ...) are refused by name,
// after ip's own checks of the command line and as failed commands that do
// not end a -force batch; the link flags arp, multicast, allmulticast and
// promisc are modelled. `ip link show`
// and `ip addr show` print as ip 6.1 does with every output option, with
// traffic counters that are all zero (netsim moves no packets; carrier
// changes are counted) and without a bond's or a bond port's attributes
// under -d (netsim keeps a bond's mode only). As in iproute2
// 6.1, a batch line takes no options (`-4
// route show` is an unknown object) and `ip nh` is not `ip nexthop`; and as
// in 6.1, the selectors of one `ip nexthop` line (dev, master, groups, fdb,
// protocol, a bucket dump's id and nhid) and the flush count stay set for
// the later nexthop lines of the same batch. `ip nexthop` and `ip nexthop
// bucket` print text and JSON from the same printer, with every output
// option; encapsulations are refused by name.
// testdata/differences.txt keeps the cases where netsim's kernel still
// answers otherwise than Linux 6.18.
//
// iproute2: ip/ip.c, ip/iplink.c, ip/ipaddress.c, ip/iproute.c,
// ip/ipnexthop.c, ip/iprule.c, ip/ipmaddr.c, ip/ipnetns.c, ip/ipneigh.c,
// lib/utils.c.
package iproute
