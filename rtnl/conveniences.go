// The conveniences: vishvananda/netlink-style one-line wrappers over the
// requests, for a Go program that configures a namespace the way `ip`
// does. Each builds the request `ip` would send (its NLM flags, devices by
// name) and makes it; everything the kernel decides is in the request
// handlers (request.go and the files named after each object).

package rtnl

// Links.

// Addresses.

// Routes.

// Nexthops.

// Rules.
