package rt

// RouteAttr is the type of a route message's attribute (enum rtattr_type_t,
// include/uapi/linux/rtnetlink.h).
type RouteAttr uint16

// The route attributes.
const (
	RTAUnspec       RouteAttr = 0            // RTA_UNSPEC
	RTADst          RouteAttr = 1            // RTA_DST
	RTASrc          RouteAttr = 2            // RTA_SRC
	RTAIIF          RouteAttr = 3            // RTA_IIF
	RTAOIF          RouteAttr = 4            // RTA_OIF
	RTAGateway      RouteAttr = 5            // RTA_GATEWAY
	RTAPriority     RouteAttr = 6            // RTA_PRIORITY
	RTAPrefSrc      RouteAttr = 7            // RTA_PREFSRC
	RTAMetrics      RouteAttr = 8            // RTA_METRICS
	RTAMultipath    RouteAttr = 9            // RTA_MULTIPATH
	RTAProtoInfo    RouteAttr = 10           // RTA_PROTOINFO (no longer used)
	RTAFlow         RouteAttr = 11           // RTA_FLOW
	RTACacheInfo    RouteAttr = 12           // RTA_CACHEINFO
	RTASession      RouteAttr = 13           // RTA_SESSION (no longer used)
	RTAMPAlgo       RouteAttr = 14           // RTA_MP_ALGO (no longer used)
	RTATable        RouteAttr = 15           // RTA_TABLE
	RTAMark         RouteAttr = 16           // RTA_MARK
	RTAMFCStats     RouteAttr = 17           // RTA_MFC_STATS
	RTAVia          RouteAttr = 18           // RTA_VIA
	RTANewDst       RouteAttr = 19           // RTA_NEWDST
	RTAPref         RouteAttr = 20           // RTA_PREF
	RTAEncapType    RouteAttr = 21           // RTA_ENCAP_TYPE
	RTAEncap        RouteAttr = 22           // RTA_ENCAP
	RTAExpires      RouteAttr = 23           // RTA_EXPIRES
	RTAPad          RouteAttr = 24           // RTA_PAD
	RTAUID          RouteAttr = 25           // RTA_UID
	RTATTLPropagate RouteAttr = 26           // RTA_TTL_PROPAGATE
	RTAIPProto      RouteAttr = 27           // RTA_IP_PROTO
	RTASport        RouteAttr = 28           // RTA_SPORT
	RTADport        RouteAttr = 29           // RTA_DPORT
	RTANHID         RouteAttr = 30           // RTA_NH_ID
	RTAFlowLabel    RouteAttr = 31           // RTA_FLOWLABEL
	RTAMax                    = RTAFlowLabel // RTA_MAX
)
