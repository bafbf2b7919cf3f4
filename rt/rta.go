// Route attribute numbers (enum rtattr_type_t of
// include/uapi/linux/rtnetlink.h), which a route dump's strict check reads.

package rt

// The route attributes (RouteAttr), numbered from 0 in the kernel's order.
const (
	RTAUnspec       RouteAttr      = iota // RTA_UNSPEC
	RTADst                                // RTA_DST
	RTASrc                                // RTA_SRC
	RTAIIF                                // RTA_IIF
	RTAOIF                                // RTA_OIF
	RTAGateway                            // RTA_GATEWAY
	RTAPriority                           // RTA_PRIORITY
	RTAPrefSrc                            // RTA_PREFSRC
	RTAMetrics                            // RTA_METRICS
	RTAMultipath                          // RTA_MULTIPATH
	RTAProtoInfo                          // RTA_PROTOINFO (no longer used)
	RTAFlow                               // RTA_FLOW
	RTACacheInfo                          // RTA_CACHEINFO
	RTASession                            // RTA_SESSION (no longer used)
	RTAMPAlgo                             // RTA_MP_ALGO (no longer used)
	RTATable                              // RTA_TABLE
	RTAMark                               // RTA_MARK
	RTAMFCStats                           // RTA_MFC_STATS
	RTAVia                                // RTA_VIA
	RTANewDst                             // RTA_NEWDST
	RTAPref                               // RTA_PREF
	RTAEncapType                          // RTA_ENCAP_TYPE
	RTAEncap                              // RTA_ENCAP
	RTAExpires                            // RTA_EXPIRES
	RTAPad                                // RTA_PAD
	RTAUID                                // RTA_UID
	RTATTLPropagate                       // RTA_TTL_PROPAGATE
	RTAIPProto                            // RTA_IP_PROTO
	RTASport                              // RTA_SPORT
	RTADport                              // RTA_DPORT
	RTANHID                               // RTA_NH_ID
	RTAFlowLabel                          // RTA_FLOWLABEL
	RTAMax          = RTAFlowLabel        // RTA_MAX
)

// RouteAttr is the type of a route message's attribute (enum rtattr_type_t,
// include/uapi/linux/rtnetlink.h).
type RouteAttr uint16
