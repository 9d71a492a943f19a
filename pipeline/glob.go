package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/pipeline/job"
)

// Path patterns
//
//	*          any run of characters within one path segment
//	?          one character
//	[abc] [!a] a character class
//	**         any number of whole segments (only as a whole segment)
//	{name}     a capture: matches like * and records the text as column
//	           "name"; {name:int} and {name:float} match and store numbers
//	\x         the character x literally
//
// Wildcards do not match names starting with ".", so temporary files
// (which npyflow names ".*.tmp-*") are never picked up.
//
// A pattern matches files, and the stores of formats whose inputs are
// directories (Format.Caps.Dir: "data/*.zarr"): a directory or bucket prefix
// whose name has such a format's extension and that holds one of
// storeMarkers at its top is one match, and the walk never descends into
// a store (its chunks and nested groups are not inputs).

var urlQueryRE = regexp.MustCompile(`\?[A-Za-z_][A-Za-z0-9_]*=`)

// capture is one {name:type} in a path pattern.
type capture struct {
	Name string
	Type string // "str", "int" or "float"
}

type pattern struct {
	raw     string
	root    string // the directory before the first wildcard
	re      *regexp.Regexp
	caps    []capture
	literal bool   // no wildcard at all
	deep    bool   // contains **
	depth   int    // segments after root
	query   string // "?..." of a URL pattern (s3://b/*.npy?region=x), kept off the match
}

// compilePattern parses a path pattern. On error it returns the byte
// offset of the problem.
func compilePattern(p string, allowCaptures bool) (*pattern, int, error) {
	pt := &pattern{raw: p}
	if storage.Scheme(p) != "" {
		// The query of a URL carries bucket parameters, not wildcards:
		// it starts at the first '?' followed by "name=" (a ? wildcard
		// before such text needs writing as a class, [x]).
		if loc := urlQueryRE.FindStringIndex(p); loc != nil {
			p, pt.query = p[:loc[0]], p[loc[0]:]
		}
	}
	var re strings.Builder
	re.WriteString("^")
	segs := strings.Split(filepath.ToSlash(p), "/")
	off := 0
	meta := false
	var rootSegs []string
	names := map[string]bool{}
	for si, seg := range segs {
		if si > 0 {
			re.WriteString("/")
		}
		segMeta := false
		if seg == "**" {
			pt.deep, segMeta = true, true
			if si == len(segs)-1 {
				re.WriteString(`(?:[^/.][^/]*)(?:/[^/.][^/]*)*`)
			} else {
				// Zero or more segments, each followed by the next "/".
				re.WriteString(`(?:[^/.][^/]*/)*`)
				// The separator written for the next segment is already
				// covered: mark it by skipping.
			}
		} else {
			for i := 0; i < len(seg); i++ {
				c := seg[i]
				switch c {
				case '\\':
					if i+1 >= len(seg) {
						return nil, off + i, fmt.Errorf("trailing \\")
					}
					i++
					re.WriteString(regexp.QuoteMeta(seg[i : i+1]))
				case '*':
					if i+1 < len(seg) && seg[i+1] == '*' {
						return nil, off + i, fmt.Errorf("** must be a whole path segment, like a/**/b.npy")
					}
					segMeta = true
					if i == 0 {
						re.WriteString(`(?:[^/.][^/]*)?`)
					} else {
						re.WriteString(`[^/]*`)
					}
				case '?':
					segMeta = true
					re.WriteString(`[^/]`)
				case '[':
					end := strings.IndexByte(seg[i+1:], ']')
					if end < 0 {
						return nil, off + i, fmt.Errorf("unclosed [")
					}
					class := seg[i+1 : i+1+end]
					if strings.HasPrefix(class, "!") {
						class = "^" + class[1:]
					}
					if class == "" || class == "^" {
						return nil, off + i, fmt.Errorf("empty character class")
					}
					re.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
					segMeta = true
					i += end + 1
				case '{':
					end := strings.IndexByte(seg[i+1:], '}')
					if end < 0 {
						return nil, off + i, fmt.Errorf("unclosed {")
					}
					if !allowCaptures {
						return nil, off + i, fmt.Errorf("captures {name} are not allowed here")
					}
					name, typ, _ := strings.Cut(seg[i+1:i+1+end], ":")
					if typ == "" {
						typ = "str"
					}
					if !job.IsName(name) || strings.Contains(name, "-") {
						return nil, off + i, fmt.Errorf("invalid capture name %q: use letters, digits and _", name)
					}
					if names[name] {
						return nil, off + i, fmt.Errorf("capture %q appears twice", name)
					}
					names[name] = true
					switch typ {
					case "str":
						if i == 0 { // like *, do not match hidden names
							re.WriteString(`(?P<` + name + `>[^/.][^/]*?)`)
						} else {
							re.WriteString(`(?P<` + name + `>[^/]+?)`)
						}
					case "int":
						re.WriteString(`(?P<` + name + `>[-+]?[0-9]+)`)
					case "float":
						re.WriteString(`(?P<` + name + `>[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)`)
					default:
						return nil, off + i, fmt.Errorf("invalid capture type %q: use str, int or float", typ)
					}
					pt.caps = append(pt.caps, capture{Name: name, Type: typ})
					segMeta = true
					i += end + 1
				case ']', '}':
					return nil, off + i, fmt.Errorf("unmatched %c (write \\%c for a literal one)", c, c)
				default:
					re.WriteString(regexp.QuoteMeta(string(c)))
				}
			}
		}
		if segMeta {
			meta = true
		}
		if !meta {
			rootSegs = append(rootSegs, seg)
		} else {
			pt.depth++
		}
		off += len(seg) + 1
	}
	re.WriteString("$")
	// "**/" wrote its own trailing slash; drop the doubled separator.
	src := strings.ReplaceAll(re.String(), `(?:[^/.][^/]*/)*/`, `(?:[^/.][^/]*/)*`)
	rx, err := regexp.Compile(src)
	if err != nil {
		return nil, 0, err
	}
	pt.re = rx
	pt.literal = !meta
	pt.root = strings.Join(rootSegs, "/")
	if pt.literal {
		pt.root = unescapeLiteral(p)
	} else if pt.root == "" {
		if strings.HasPrefix(filepath.ToSlash(p), "/") {
			pt.root = "/"
		} else {
			pt.root = "."
		}
	}
	return pt, 0, nil
}

// checkPattern is a Field check for path patterns with captures.
func checkPattern(v string) (string, int) {
	if _, off, err := compilePattern(v, true); err != nil {
		return "invalid path pattern: " + err.Error(), off
	}
	return "", 0
}

func checkExclude(v string) (string, int) {
	if _, off, err := compilePattern(v, false); err != nil {
		return "invalid path pattern: " + err.Error(), off
	}
	return "", 0
}

// storeMarkers are the names a directory store holds at its top, one at
// least: a Zarr v3 store's zarr.json, a v2 group's .zgroup or a v2
// array's .zarray.
var storeMarkers = []string{"zarr.json", ".zgroup", ".zarray"}

// isStore reports whether dir, a local directory or a bucket prefix (its
// URL's query in query), is a store of a Dir format: its name has the
// format's extension and it holds one of storeMarkers.
func isStore(ctx context.Context, dir, query string) bool {
	if f := FormatOf(dir); f == nil || !f.Caps.Dir {
		return false
	}
	for _, m := range storeMarkers {
		name := dir + "/" + m
		if storage.Scheme(dir) == "" {
			name = filepath.Join(dir, m)
		}
		if st, err := storage.Stat(ctx, name+query); err == nil && !st.IsDir {
			return true
		}
	}
	return false
}

// match is one file (or store, see isStore) found by a pattern.
type match struct {
	Path string
	Size int64
	Caps map[string]string
}

// glob lists the regular files and the stores (see isStore) matching
// pat, sorted by path. The pattern must already be resolved against the
// job directory.
func (pt *pattern) glob(ctx context.Context) ([]match, error) {
	if pt.literal {
		if f := FormatOf(pt.root + pt.query); f != nil && f.Caps.Dir {
			// A store (a directory or bucket prefix): its reader says
			// whether it is one.
			return []match{{Path: pt.root + pt.query}}, nil
		}
		st, err := storage.Stat(ctx, pt.root+pt.query)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no such file: %s", storage.Redact(pt.root+pt.query))
		}
		if err != nil {
			return nil, err
		}
		if st.IsDir {
			return nil, fmt.Errorf("%s is a directory", storage.Redact(pt.root+pt.query))
		}
		return []match{{Path: pt.root + pt.query, Size: st.Size}}, nil
	}
	if storage.Scheme(pt.root) != "" {
		return pt.globStorage(ctx)
	}
	var out []match
	rootDepth := strings.Count(filepath.ToSlash(filepath.Clean(pt.root)), "/")
	err := filepath.WalkDir(pt.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == pt.root && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll // no directory, no matches
			}
			if p == pt.root {
				return err
			}
			return nil // unreadable subdirectory: skip it like a shell glob
		}
		if d.IsDir() {
			if err := ctx.Err(); err != nil {
				return err // Ctrl-C during a walk of a large tree
			}
			if p != pt.root && isStore(ctx, p, "") {
				if m, ok := pt.match(pt.slash(p)); ok {
					m.Path = p
					out = append(out, m)
				}
				return filepath.SkipDir // a store's files and groups are not inputs
			}
			if p != pt.root && !pt.deep && strings.Count(filepath.ToSlash(filepath.Clean(p)), "/")-rootDepth >= pt.depth {
				return filepath.SkipDir
			}
			return nil
		}
		m, ok := pt.match(pt.slash(p))
		if !ok {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			if d.Type()&fs.ModeSymlink != 0 {
				if st, e := os.Stat(p); e == nil && st.Mode().IsRegular() {
					info, err = st, nil
				} else if e == nil && st.IsDir() && isStore(ctx, p, "") {
					m.Path = p // a link to a store
					out = append(out, m)
					return nil
				}
			}
			if err != nil || info == nil || !info.Mode().IsRegular() {
				return nil
			}
		}
		m.Path, m.Size = p, info.Size()
		out = append(out, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// slash is the local path p as the pattern matches it: slash-separated,
// without the "./" of a walk from ".".
func (pt *pattern) slash(p string) string {
	s := filepath.ToSlash(p)
	if pt.root == "." {
		s = strings.TrimPrefix(s, "./")
	}
	return s
}

// match matches the slash-separated path p, with its captures.
func (pt *pattern) match(p string) (match, bool) {
	sm := pt.re.FindStringSubmatch(p)
	if sm == nil {
		return match{}, false
	}
	m := match{Path: p}
	for i, n := range pt.re.SubexpNames() {
		if n != "" {
			if m.Caps == nil {
				m.Caps = map[string]string{}
			}
			m.Caps[n] = sm[i]
		}
	}
	return m, true
}

// globStorage is glob for a URL pattern: it lists the prefixes under the
// root through the storage backend, one page at a time, descending only as
// deep as the pattern reaches. A prefix that is a store (see isStore: up
// to len(storeMarkers) Stat calls for a name with a Dir format's
// extension) is one match if it matches, and is not listed.
func (pt *pattern) globStorage(ctx context.Context) ([]match, error) {
	if s := storage.Scheme(pt.root); s == "http" || s == "https" {
		return nil, fmt.Errorf("%s is a pattern, but %s:// URLs cannot be matched: HTTP has no listing (a server answers for the names it is asked for, "+
			"and has no standard way to say which names exist); name each file in paths (a list of URLs), or copy the files to a bucket "+
			"(s3://, gs://, azblob://) or a local directory and use the pattern there", storage.Redact(pt.raw), s)
	}
	var out []match
	rootDepth := strings.Count(strings.TrimSuffix(pt.root, "/"), "/")
	var walk func(dir string) error
	walk = func(dir string) error {
		after := ""
		for {
			page, more, err := storage.List(ctx, dir+pt.query, after, 1000)
			if err != nil {
				if dir == pt.root && errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			for _, e := range page {
				p := storage.Path(e.Name)
				if e.IsDir {
					if isStore(ctx, p, pt.query) {
						if m, ok := pt.match(p); ok {
							m.Path = p + pt.query // a store: one input
							out = append(out, m)
						}
						continue // its objects and groups are not inputs
					}
					if !pt.deep && strings.Count(p, "/")-rootDepth >= pt.depth {
						continue
					}
					if err := walk(p); err != nil {
						return err
					}
					continue
				}
				if m, ok := pt.match(p); ok {
					m.Path, m.Size = p+pt.query, e.Size
					out = append(out, m)
				}
			}
			if !more || len(page) == 0 {
				return nil
			}
			after = page[len(page)-1].Name
		}
	}
	if err := walk(strings.TrimSuffix(pt.root, "/")); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// excluded reports whether path matches one of the exclusion patterns; a
// pattern without "/" is matched against the base name.
func excluded(path string, ex []*pattern) bool {
	slash := filepath.ToSlash(storage.Path(path))
	for _, e := range ex {
		if !strings.Contains(e.raw, "/") {
			if e.re.MatchString(filepath.Base(slash)) {
				return true
			}
			continue
		}
		if e.re.MatchString(slash) {
			return true
		}
	}
	return false
}

// unescapeLiteral drops the backslashes of a pattern without wildcards
// (\* is *).
func unescapeLiteral(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}
