package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/context-ls/context-ls/workspace"
)

// Several workspace folders: a language server's client may open several,
// each with its own index and service. CallFolders runs an operation
// across them by its Scope, so that no front end merges answers itself.

// Folder is one workspace folder of a client.
type Folder struct {
	// URI and Root name the folder as the client named it.
	URI, Root string
	// Backend answers the folder's operations.
	Backend Backend
}

// FoldersResult is the answer of a ScopeEach operation: one entry per
// folder, the operation's own result with the folder's URI added.
type FoldersResult struct {
	Folders []json.RawMessage `json:"folders" desc:"one answer per workspace folder, each with its folder's URI (folder)"`
}

// folderArg is the argument of operations on several folders that names
// one of them.
const folderArg = "folder"

// CallFolders runs the operation named name with a JSON request across
// folders, by the operation's Scope:
//   - ScopeOne: the folder holding the request's file (an absolute path;
//     a relative one is the folder argument's, else the first folder's);
//     for a symbol alone every folder, their answers merged (or the first
//     that knows the symbol); else the folder argument's (a URI), or the
//     first folder. The answer gains the folder's URI (folder).
//   - ScopeAll: every folder, their answers merged (only the folder of
//     the request's file, when it names one).
//   - ScopeEach: every folder (those the request's paths lie in, when it
//     names paths), answered apart in a FoldersResult.
//
// A folder that fails while others answer is left out (warn hears why);
// when every folder fails, the error is returned.
func CallFolders(ctx context.Context, folders []Folder, name string, request json.RawMessage, warn func(error)) (json.RawMessage, error) {
	o, ok := Lookup(name)
	if !ok {
		return nil, unknownOp(name)
	}
	if len(folders) == 0 {
		return nil, &Error{Code: CodeUnavailable, Message: "no workspace folder is open"}
	}
	if warn == nil {
		warn = func(error) {}
	}
	args, err := argsObject(request)
	if err != nil {
		return nil, err
	}
	chosen := folders
	if raw, ok := args[folderArg]; ok {
		delete(args, folderArg)
		f, err := folderNamed(folders, raw)
		if err != nil {
			return nil, err
		}
		chosen = []Folder{f}
	}
	c := &folderCall{o: o, warn: warn}
	if o.Scope == ScopeEach {
		return c.each(ctx, chosen, args)
	}
	if file := stringArg(args, "file"); file != "" {
		f := chosen[0]
		if filepath.IsAbs(file) {
			if f, ok = folderOf(folders, file); !ok {
				return nil, invalid("file", "%s is in no open workspace folder", file)
			}
		}
		return c.one(ctx, f, folders, args)
	}
	if o.Scope == ScopeAll || stringArg(args, "symbol") != "" {
		return c.all(ctx, chosen, args)
	}
	return c.one(ctx, chosen[0], folders, args)
}

// folderCall is one operation run across folders.
type folderCall struct {
	o    *Op
	warn func(error)
}

// call runs the operation on one folder.
func (c *folderCall) call(ctx context.Context, f Folder, args map[string]json.RawMessage) (json.RawMessage, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	return f.Backend.Call(ctx, c.o.Name, raw)
}

// one runs the operation on folder f and names it in the answer; others
// may complete it (Op.elsewhere).
func (c *folderCall) one(ctx context.Context, f Folder, all []Folder, args map[string]json.RawMessage) (json.RawMessage, error) {
	raw, err := c.call(ctx, f, args)
	if err != nil {
		return nil, err
	}
	if c.o.elsewhere != nil && len(all) > 1 {
		res, err := c.decode(raw)
		if err != nil {
			return nil, err
		}
		var others []Folder
		for _, g := range all {
			if g.Root != f.Root {
				others = append(others, g)
			}
		}
		if raw, err = json.Marshal(c.o.elsewhere(ctx, res, others)); err != nil {
			return nil, err
		}
	}
	return withField(raw, folderArg, f.URI)
}

// all runs the operation on every folder and merges the answers (without
// a merge, the first folder that does not answer "not found" wins).
func (c *folderCall) all(ctx context.Context, folders []Folder, args map[string]json.RawMessage) (json.RawMessage, error) {
	if len(folders) == 1 {
		return c.one(ctx, folders[0], folders, args)
	}
	var results []any
	var errs []error
	var notFound error
	for _, f := range folders {
		raw, err := c.call(ctx, f, args)
		if err == nil && c.o.merge == nil {
			return withField(raw, folderArg, f.URI)
		}
		var res any
		if err == nil {
			res, err = c.decode(raw)
		}
		switch {
		case ctx.Err() != nil:
			return nil, ctxErr(ctx)
		case errors.Is(err, ErrNotFound):
			notFound = err
		case errors.Is(err, ErrInvalid):
			return nil, err // the same request is as wrong for every folder
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", f.Root, err))
		default:
			results = append(results, res)
		}
	}
	if len(results) == 0 {
		if len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
		return nil, notFound
	}
	for _, err := range errs {
		c.warn(err)
	}
	req := reflect.New(c.o.Request)
	if raw, err := json.Marshal(args); err == nil {
		_ = decode(raw, req.Interface()) // every folder accepted it
	}
	return json.Marshal(c.o.merge(req.Elem().Interface(), results))
}

// each runs the operation on every folder apart (only those its paths
// name, when it names paths).
func (c *folderCall) each(ctx context.Context, folders []Folder, args map[string]json.RawMessage) (json.RawMessage, error) {
	plan, err := splitPaths(folders, args)
	if err != nil {
		return nil, err
	}
	out := FoldersResult{Folders: []json.RawMessage{}}
	var errs []error
	for _, p := range plan {
		fa := args
		if p.paths != nil {
			fa = map[string]json.RawMessage{}
			for k, v := range args {
				fa[k] = v
			}
			fa["paths"], _ = json.Marshal(p.paths)
		}
		raw, err := c.call(ctx, p.f, fa)
		if err == nil {
			raw, err = withField(raw, folderArg, p.f.URI)
		}
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, ErrInvalid) {
				return nil, fmt.Errorf("%s: %w", p.f.Root, err)
			}
			errs = append(errs, fmt.Errorf("%s: %w", p.f.Root, err))
			continue
		}
		out.Folders = append(out.Folders, raw)
	}
	if len(errs) == len(plan) && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, err := range errs {
		c.warn(err)
	}
	return json.Marshal(out)
}

// decode decodes one folder's answer into the operation's result type.
func (c *folderCall) decode(raw json.RawMessage) (any, error) {
	v := reflect.New(c.o.Result)
	if err := json.Unmarshal(raw, v.Interface()); err != nil {
		return nil, fmt.Errorf("%s: malformed result: %w", c.o.Name, err)
	}
	return v.Interface(), nil
}

// folderPaths are the paths of a request that lie in one folder (nil: the
// request named none).
type folderPaths struct {
	f     Folder
	paths []string
}

// splitPaths assigns a request's paths to the folders holding them: a
// file URI or absolute path to the folder it lies in, a relative path to
// every folder where it exists (the first when it exists in none, whose
// service then says so). Without paths every folder is listed.
func splitPaths(folders []Folder, args map[string]json.RawMessage) ([]folderPaths, error) {
	raw, ok := args["paths"]
	var paths []string
	if ok {
		if err := json.Unmarshal(raw, &paths); err != nil {
			return nil, invalid("paths", "must be an array of strings, got %s", jsonKind(raw))
		}
	}
	if len(paths) == 0 {
		out := make([]folderPaths, 0, len(folders))
		for _, f := range folders {
			out = append(out, folderPaths{f: f})
		}
		return out, nil
	}
	byRoot := map[string]*folderPaths{}
	var out []*folderPaths
	add := func(f Folder, p string) {
		fp := byRoot[f.Root]
		if fp == nil {
			fp = &folderPaths{f: f, paths: []string{}}
			byRoot[f.Root] = fp
			out = append(out, fp)
		}
		fp.paths = append(fp.paths, p)
	}
	for i, p := range paths {
		field := fmt.Sprintf("paths[%d]", i)
		if strings.TrimSpace(p) == "" {
			return nil, invalid(field, "empty path")
		}
		if strings.HasPrefix(p, "file:") {
			abs, err := workspace.URIToPath(p)
			if err != nil {
				return nil, invalid(field, "%v", err)
			}
			p = abs
		}
		if filepath.IsAbs(p) {
			f, ok := folderOf(folders, p)
			if !ok {
				return nil, invalid(field, "%s is in no open workspace folder", p)
			}
			add(f, p)
			continue
		}
		found := false
		for _, f := range folders {
			if _, err := os.Lstat(filepath.Join(f.Root, filepath.FromSlash(p))); err == nil {
				add(f, p)
				found = true
			}
		}
		if !found {
			add(folders[0], p)
		}
	}
	list := make([]folderPaths, 0, len(out))
	for _, fp := range out {
		list = append(list, *fp)
	}
	return list, nil
}

// folderOf returns the folder holding an absolute path (the deepest when
// folders nest).
func folderOf(folders []Folder, path string) (Folder, bool) {
	best, found := Folder{}, false
	for _, f := range folders {
		if within(path, f.Root) && (!found || len(f.Root) > len(best.Root)) {
			best, found = f, true
		}
	}
	return best, found
}

// within reports whether path is root or inside it.
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// folderNamed finds the folder a folder argument names (its URI, or its
// path).
func folderNamed(folders []Folder, raw json.RawMessage) (Folder, error) {
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return Folder{}, invalid(folderArg, "must be a string, got %s", jsonKind(raw))
	}
	root := name
	if strings.HasPrefix(name, "file:") {
		p, err := workspace.URIToPath(name)
		if err != nil {
			return Folder{}, invalid(folderArg, "%v", err)
		}
		root = p
	}
	for _, f := range folders {
		if f.URI == name || filepath.Clean(f.Root) == filepath.Clean(root) {
			return f, nil
		}
	}
	return Folder{}, invalid(folderArg, "%s is not an open workspace folder", name)
}

// argsObject decodes a request's arguments object (nothing and null are
// an empty one).
func argsObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	args := map[string]json.RawMessage{}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return args, nil
	}
	if raw[0] != '{' {
		return nil, invalid("arguments", "must be an object")
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, invalid("arguments", "not a valid JSON object: %v", err)
	}
	return args, nil
}

// stringArg is a string argument's value ("" when absent or not a
// string: the service says what is wrong with it).
func stringArg(args map[string]json.RawMessage, name string) string {
	var s string
	if raw, ok := args[name]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return strings.TrimSpace(s)
}

// withField adds a string field to a JSON object.
func withField(raw json.RawMessage, name, value string) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("adding %s to a result: %w", name, err)
	}
	obj[name], _ = json.Marshal(value)
	return json.Marshal(obj)
}
