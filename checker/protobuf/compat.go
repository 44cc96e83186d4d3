package protobuf

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/located"
)

// Compat checks files for the CLI: each input is a file on disk named by Path (Data,
// when set, is used instead of reading it). Imports resolve against opts.ImportPaths
// (directories, in order), then the directory of the importing input, plus the
// well-known types. An import that is absolute or contains ".." is an InputError.
// The record message is each file's first message.
func Compat(previous []checker.Input, next checker.Input, opts checker.Options) (*checker.Result, error) {
	rules, err := ParseRules(opts.Rules)
	if err != nil {
		return nil, err
	}
	level := opts.Level
	if level == "" {
		level = checker.Backward
	}
	prev := make([]*Schema, 0, len(previous))
	for _, in := range previous {
		s, err := parseInput(in, opts.ImportPaths)
		if err != nil {
			return nil, err
		}
		prev = append(prev, s)
	}
	s, err := parseInput(next, opts.ImportPaths)
	if err != nil {
		return nil, err
	}
	return Check(prev, s, level, rules), nil
}

// parseInput compiles one input file, resolving its imports inside the given
// directories and its own directory.
func parseInput(in checker.Input, importPaths []string) (*Schema, error) {
	data := in.Data
	if data == nil {
		st, err := os.Stat(in.Path)
		if err != nil {
			return nil, &checker.InputError{Span: located.Span{File: in.Path}, Message: fmt.Sprintf("cannot read the schema: %v", err)}
		}
		if st.Size() > MaxSchemaBytes {
			return nil, &checker.InputError{Span: located.Span{File: in.Path}, Message: fmt.Sprintf("the schema is %d bytes, over the limit of %d bytes; split it into smaller files", st.Size(), MaxSchemaBytes)}
		}
		data, err = os.ReadFile(in.Path)
		if err != nil {
			return nil, &checker.InputError{Span: located.Span{File: in.Path}, Message: fmt.Sprintf("cannot read the schema: %v", err)}
		}
	}
	dirs := append(append([]string(nil), importPaths...), filepath.Dir(in.Path))
	self := importPathOf(in.Path, importPaths)
	names := &fileNames{main: self, display: in.Path}
	return parse(self, names, dirResolver(dirs, map[string][]byte{self: data}, names), "")
}

// importPathOf names a file as imports would: relative to the first import directory
// that holds it, else by its base name.
func importPathOf(file string, importPaths []string) string {
	abs, err := filepath.Abs(file)
	if err == nil {
		for _, dir := range importPaths {
			d, err := filepath.Abs(dir)
			if err != nil {
				continue
			}
			if rel, err := filepath.Rel(d, abs); err == nil && !strings.HasPrefix(rel, "..") {
				return filepath.ToSlash(rel)
			}
		}
	}
	return filepath.Base(file)
}

// CheckImportPath rejects import paths that could reach outside the tree: absolute
// paths, paths with "..", backslashes or empty elements.
func CheckImportPath(p string) error {
	if p == "" || path.IsAbs(p) || filepath.IsAbs(p) || strings.Contains(p, "\\") || strings.HasPrefix(p, "/") {
		return fmt.Errorf("import %q is not a relative path inside the contract tree; import files by their path inside the tree", p)
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." || el == "." || el == "" {
			return fmt.Errorf("import %q reaches outside the contract tree (\"..\", \".\" or an empty element); import files by their path inside the tree", p)
		}
	}
	return nil
}

// DirResolver resolves import paths against directories in order, after the given
// in-memory files. It refuses paths that could leave the directories.
func DirResolver(dirs []string, files map[string][]byte) Resolver {
	return dirResolver(dirs, files, nil)
}

// dirResolver is DirResolver recording, in names (when not nil), the disk path of
// each file read. The compiler calls it from several goroutines at once (one per
// import being compiled), so it only reads dirs and files and records through the
// lock of names.
func dirResolver(dirs []string, files map[string][]byte, names *fileNames) Resolver {
	return func(name string) ([]byte, error) {
		if data, ok := files[name]; ok {
			return data, nil
		}
		if err := CheckImportPath(name); err != nil {
			return nil, err
		}
		for _, dir := range dirs {
			full := filepath.Join(dir, filepath.FromSlash(name))
			st, err := os.Stat(full)
			if err != nil || st.IsDir() {
				continue
			}
			if st.Size() > MaxSchemaBytes {
				return nil, fmt.Errorf("%s is %d bytes, over the limit of %d bytes", name, st.Size(), MaxSchemaBytes)
			}
			if names != nil {
				names.record(name, full)
			}
			return os.ReadFile(full)
		}
		return nil, fmt.Errorf("import %q not found in %s: %w", name, strings.Join(dirs, ", "), fs.ErrNotExist)
	}
}
