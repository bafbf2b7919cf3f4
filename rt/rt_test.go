package rt_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/rt"
)

func TestNamesRoundTrip(t *testing.T) {
	for v := 0; v < 256; v++ {
		p, ok := rt.ParseProtocol(rt.Protocol(v).String())
		require.True(t, ok)
		assert.Equal(t, rt.Protocol(v), p)
		s, ok := rt.ParseScope(rt.Scope(v).String())
		require.True(t, ok)
		assert.Equal(t, rt.Scope(v), s)
		ty, ok := rt.ParseType(rt.Type(v).String())
		if v == 0 {
			// rtnl_rtntype_a2n has no "unspec".
			assert.False(t, ok)
			continue
		}
		require.True(t, ok, v)
		assert.Equal(t, rt.Type(v), ty)
	}
	for _, id := range []uint32{0, 1, 252, 253, 254, 255, 256, 1 << 31, 1<<32 - 1} {
		got, ok := rt.ParseTable(rt.TableName(id))
		require.True(t, ok)
		assert.Equal(t, id, got)
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want rt.Type
		ok   bool
	}{{"bl", rt.TypeBlackhole, true}, {"brd", rt.TypeBroadcast, true}, {"b", rt.TypeBroadcast, true},
		{"loc", 0, false}, {"throw", rt.TypeThrow, true}, {"thr", 0, false}, {"0x5", rt.TypeMulticast, true}, {"256", 0, false}} {
		got, ok := rt.ParseType(c.in)
		assert.Equal(t, c.ok, ok, c.in)
		if ok {
			assert.Equal(t, c.want, got, c.in)
		}
	}
	for _, c := range []struct {
		in string
		ok bool
	}{{"12", true}, {"0x10", true}, {"010", true}, {"-1", false}, {"1_0", false}, {"0b1", false}, {"", false}, {"4294967296", false}} {
		_, ok := rt.ParseTable(c.in)
		assert.Equal(t, c.ok, ok, c.in)
	}
	assert.Equal(t, "main", rt.TableName(rt.TableMain))
	assert.Equal(t, "dead onlink linkdown", (rt.FlagLinkDown | rt.FlagDead | rt.FlagOnLink).String())
	assert.Equal(t, "inet6", rt.FamilyName(rt.FamilyInet6))
}

func TestDSField(t *testing.T) {
	for v := 0; v < 256; v++ {
		got, ok := rt.ParseDSField(rt.DSFieldName(uint8(v)))
		require.True(t, ok, v)
		assert.Equal(t, uint8(v), got)
	}
	assert.Equal(t, "AF11", rt.DSFieldName(0x28))
	assert.Equal(t, "0x10", rt.DSFieldName(0x10))
	assert.Equal(t, "0x04", rt.DSFieldName(4))
	for _, c := range []struct {
		in   string
		want uint8
		ok   bool
	}{{"10", 0x10, true}, {"0x10", 0x10, true}, {"ff", 0xff, true}, {"EF", 0xb8, true}, {"ef", 0xef, true},
		{"af11", 0xaf, false}, {"100", 0, false}, {"", 0, false}, {"0x", 0, false}, {"-1", 0, false}} {
		got, ok := rt.ParseDSField(c.in)
		assert.Equal(t, c.ok, ok, c.in)
		if ok {
			assert.Equal(t, c.want, got, c.in)
		}
	}
}
