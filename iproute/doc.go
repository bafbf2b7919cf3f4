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
// The package is laid out as iproute2 is:
//
//   - the process and its options (ip.go, options.go: ip.c's main and
//     batch, its option table in ip's order of comparison);
//   - the objects and their commands as a table (commands.go: object and
//     command; the dispatcher runs from it, and docs/ip.md's table of what
//     netsim runs and refuses is generated from it), each command's grammar
//     a table of keywords (keywords.go: iproute2's chains of matches() and
//     strcmp() as data, walked by walk);
//   - the names, in package rt (rt_names.c's tables: protocols, scopes,
//     tables, types, dsfield, metrics, flags);
//   - one printer per object (print_link.go, print_addr.go, route_print.go,
//     and the print functions of nexthop.go, rule.go, maddr.go, netns.go),
//     written as iproute2's print_* functions are, on printer (print.go,
//     json.go: json_print.c and json_writer.c), so that -j and -j -p print
//     JSON from the same calls that print text, byte for byte as ip 6.1.
//
// The objects netsim runs: link (veth, macvlan, bridge, dummy, vlan, bond,
// vrf; a kind Linux does not know is the kernel's "Unknown device type",
// one it has but netsim does not model is refused by name), address, route,
// nexthop (hash-threshold and resilient groups, fdb nexthops, buckets),
// rule, maddress, netns and neighbour (show only: netsim keeps no
// neighbour tables), with the keywords and abbreviations ip accepts (ip
// compares a word with a keyword by prefix, in its own order of keywords:
// `ip a` is address, `ip r` route, `ip ru` rule, `ip n` neighbor), and the
// output options -j, -p, -o, -br, -d and -s (-s -s) as ip prints them.
//
// Errors are printed the way ip prints them: "Error: <extack message>."
// when the kernel attached a message, "RTNETLINK answers: <strerror>" when
// it did not, and ip's own messages (`Cannot find device "x"`, `Error:
// argument "x" is wrong: ...`) for what ip rejects before asking the
// kernel. As in ip, an argument error (ip's invarg and duparg) ends the
// whole process, -force or not; any other failed command of a batch prints
// "Command failed FILE:LINE" and stops the batch unless -force is given.
// What netsim does not model is refused by name with the reason, as a
// failed command that does not end a -force batch (objects, commands,
// keywords, and -s on route get).
//
// Where the output is not iproute2's: traffic counters are all zero
// (netsim moves no packets; carrier changes are counted); an 802.3ad
// bond's ad_aggregator and its ports' LACP port states are not printed
// (netsim runs no LACP state machine). iproute2 6.1's quirks are kept: a
// batch line takes no options (`-4 route show` is an unknown object), `ip
// nh` is not `ip nexthop`, the selectors of `ip nexthop` and `ip maddr`
// stay set for the later lines of the same batch (iproute2's static
// filters), and `ip maddr add/del` ends ip, and the batch, whatever the
// outcome. testdata/differences.txt keeps the cases where netsim's kernel
// still answers otherwise than Linux 6.18.
//
// iproute2: ip/ip.c, ip/iplink.c, ip/ipaddress.c, ip/iproute.c,
// ip/ipnexthop.c, ip/iprule.c, ip/ipmaddr.c, ip/ipnetns.c, ip/ipneigh.c,
// lib/utils.c.
package iproute
