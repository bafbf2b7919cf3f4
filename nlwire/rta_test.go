package nlwire

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
)

// rt's route attribute types are the kernel's (uapi, generated from
// include/uapi/linux/rtnetlink.h).
func TestRouteAttrsMatchUAPI(t *testing.T) {
	for _, c := range []struct {
		rt   rt.RouteAttr
		uapi uint16
	}{
		{rt.RTAUnspec, uapi.RTA_UNSPEC}, {rt.RTADst, uapi.RTA_DST}, {rt.RTASrc, uapi.RTA_SRC},
		{rt.RTAIIF, uapi.RTA_IIF}, {rt.RTAOIF, uapi.RTA_OIF}, {rt.RTAGateway, uapi.RTA_GATEWAY},
		{rt.RTAPriority, uapi.RTA_PRIORITY}, {rt.RTAPrefSrc, uapi.RTA_PREFSRC}, {rt.RTAMetrics, uapi.RTA_METRICS},
		{rt.RTAMultipath, uapi.RTA_MULTIPATH}, {rt.RTAFlow, uapi.RTA_FLOW}, {rt.RTACacheInfo, uapi.RTA_CACHEINFO},
		{rt.RTATable, uapi.RTA_TABLE}, {rt.RTAMark, uapi.RTA_MARK}, {rt.RTAMFCStats, uapi.RTA_MFC_STATS},
		{rt.RTAVia, uapi.RTA_VIA}, {rt.RTANewDst, uapi.RTA_NEWDST}, {rt.RTAPref, uapi.RTA_PREF},
		{rt.RTAEncapType, uapi.RTA_ENCAP_TYPE}, {rt.RTAEncap, uapi.RTA_ENCAP}, {rt.RTAExpires, uapi.RTA_EXPIRES},
		{rt.RTAPad, uapi.RTA_PAD}, {rt.RTAUID, uapi.RTA_UID}, {rt.RTATTLPropagate, uapi.RTA_TTL_PROPAGATE},
		{rt.RTAIPProto, uapi.RTA_IP_PROTO}, {rt.RTASport, uapi.RTA_SPORT}, {rt.RTADport, uapi.RTA_DPORT},
		{rt.RTANHID, uapi.RTA_NH_ID}, {rt.RTAFlowLabel, uapi.RTA_FLOWLABEL}, {rt.RTAMax, uapi.RTA_MAX},
	} {
		assert.Equal(t, c.uapi, uint16(c.rt))
	}
	assert.Equal(t, uint32(uapi.RTM_F_PREFIX), rt.RTMFPrefix)
	assert.Equal(t, uint32(uapi.RTM_F_CLONED), rt.RTMFCloned)
}
