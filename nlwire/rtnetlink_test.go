package nlwire

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/mdlayher/netlink"
	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/rtnl"
)

// TestRTNetlinkLayout pins the layout of jsimonetti/rtnetlink's Conn that
// newRTNetlinkConn depends on: the unexported field c of an interface type
// *netlink.Conn implements, one exported service field per service, and
// each service's field c pointing back to the Conn. An upgrade that
// changes any of it fails here, naming the field, and must come with a
// matching newRTNetlinkConn.
func TestRTNetlinkLayout(t *testing.T) {
	require.Equal(t, "v2.3.0", moduleVersion(t, "github.com/jsimonetti/rtnetlink/v2"),
		"newRTNetlinkConn is written for rtnetlink v2.3.0's layout: check it against the new version, then update this test")

	conn := reflect.TypeOf(rtnetlink.Conn{})
	services := map[string]reflect.Type{
		"Link":    reflect.TypeOf(rtnetlink.LinkService{}),
		"Address": reflect.TypeOf(rtnetlink.AddressService{}),
		"Route":   reflect.TypeOf(rtnetlink.RouteService{}),
		"Neigh":   reflect.TypeOf(rtnetlink.NeighService{}),
		"Rule":    reflect.TypeOf(rtnetlink.RuleService{}),
	}
	require.Equal(t, 1+len(services), conn.NumField(), "rtnetlink.Conn has fields newRTNetlinkConn does not set")
	for i := range conn.NumField() {
		f := conn.Field(i)
		if f.Name == "c" {
			require.Equal(t, reflect.Interface, f.Type.Kind(), "rtnetlink.Conn.c is no longer an interface")
			require.True(t, reflect.TypeOf(&netlink.Conn{}).Implements(f.Type),
				"*netlink.Conn no longer implements rtnetlink.Conn.c's type %s", f.Type)
			continue
		}
		svc, ok := services[f.Name]
		require.True(t, ok, "rtnetlink.Conn has a field %s that newRTNetlinkConn does not set", f.Name)
		require.Equal(t, reflect.PointerTo(svc), f.Type, "rtnetlink.Conn.%s changed type", f.Name)
		require.Equal(t, 1, svc.NumField(), "%s has fields newRTNetlinkConn does not set", svc)
		c, ok := svc.FieldByName("c")
		require.True(t, ok, "%s has no field c", svc)
		require.Equal(t, reflect.TypeOf(&rtnetlink.Conn{}), c.Type, "%s.c changed type", svc)
	}

	// The connection built works end to end: every service reaches the
	// socket.
	k := rtnl.MustNewKernel(rtnl.After)
	rc, err := DialRTNetlink(k.InitNet())
	require.NoError(t, err)
	defer rc.Close()
	links, err := rc.Link.List()
	require.NoError(t, err)
	require.Len(t, links, 1)
	require.Equal(t, "lo", links[0].Attributes.Name)
	_, err = rc.Address.List()
	require.NoError(t, err)
	_, err = rc.Route.List()
	require.NoError(t, err)
	_, err = rc.Rule.List()
	require.NoError(t, err)
}

// moduleVersion returns the version go.mod requires of module path.
func moduleVersion(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "go.mod"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		fs := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(fs) >= 2 && fs[0] == path {
			return fs[1]
		}
	}
	t.Fatalf("go.mod does not require %s", path)
	return ""
}

// moduleRoot returns the directory of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the package")
		dir = parent
	}
}

// Only nlwire (with its internal packages and tests) and the examples
// written against them (the agents nlagent, nlraw, dockerbridge and
// cnibridge, and the requests the last two share) import the netlink client libraries: the rest of
// netsim stays free of them. Every .go file of the module is parsed for
// its imports, whatever its build constraints.
func TestNetlinkImportsConfined(t *testing.T) {
	root := moduleRoot(t)
	restricted := []string{"github.com/mdlayher/netlink", "github.com/jsimonetti/rtnetlink"}
	allowed := []string{"nlwire", "examples/nlagent", "examples/nlraw", "examples/dockerbridge", "examples/cnibridge", "examples/internal/nlops"}
	fset := token.NewFileSet()
	files, users := 0, 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		ok := false
		for _, a := range allowed {
			ok = ok || strings.HasPrefix(rel, a+"/")
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			for _, r := range restricted {
				if p == r || strings.HasPrefix(p, r+"/") {
					users++
					require.True(t, ok, "%s imports %s: only nlwire and %s may", rel, p, strings.Join(allowed[1:], ", "))
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, files, 100, "the walk found too few files to have looked at the module")
	require.NotZero(t, users, "no file imports the netlink libraries: the walk missed nlwire")
}
