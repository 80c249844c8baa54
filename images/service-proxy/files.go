package main

// podrun's way to files on an engine that cannot see this host's disk (an engine on another host,
// or in a VM that does not share podrun's state directory): podrun keeps writing a pod's files
// (configMap, secret, downwardAPI and projected volumes, /etc/hosts, resolv.conf, termination
// logs) in its pod directory here, then copies them into an engine volume of the pod with one
// `run --rm -i` of this image, which mounts that volume and reads a tar archive of the files on
// stdin (`-files`). The containers bind-mount paths inside that volume, as they would bind-mount
// the pod directory on a local engine.
//
//	service-proxy -files ROOT [OWNED...]   apply the tar on stdin under ROOT
//	service-proxy -read FILE...            print {"FILE": "<base64>"} of the files that exist
//	service-proxy -subpath ROOT SUBPATH    make a volume's subPath directory, as a kubelet does
//
// -files applies the entries in the archive's order, so that a volume's new timestamped directory
// is written before the `..data` link that points to it is swapped:
//   - a directory is made when missing, and given the entry's mode and owner when present (never
//     replaced: a container's bind mount holds it);
//   - a regular file is written in place, truncated then written (its inode kept: a container's
//     bind mount of that one file, /etc/hosts, sees the change);
//   - a symbolic link is made under a temporary name and renamed over the old one: the swap of
//     `..data` is atomic, as the kubelet's atomic writer makes it;
//   - then, under each OWNED path, whatever the archive did not name is removed (a volume's old
//     timestamped directory, a key that is gone).
//
// No entry may climb out of ROOT: names are relative, without `..`, and no directory on the way
// to an entry may be a symbolic link. A chown or chmod that fails (a rootless engine that does not
// map the group) does not stop the copy: it is reported on stderr as a line "warning: …".

import (
	"archive/tar"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// files applies the archive on r under root; OWNED paths are pruned to what it names.
func files(root string, owned []string, r io.Reader, stderr io.Writer) error {
	named := map[string]bool{".": true}
	reader := tar.NewReader(r)
	for {
		header, err := reader.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading the archive: %w", err)
		}
		name, err := cleanName(header.Name)
		if err != nil {
			return err
		}
		for part := name; part != "."; part = filepath.Dir(part) {
			named[part] = true
		}
		target := filepath.Join(root, name)
		if err := checkParents(root, name); err != nil {
			return err
		}
		if err := applyEntry(target, header, reader, stderr); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	for _, path := range owned {
		clean, err := cleanName(path)
		if err != nil {
			return err
		}
		if err := prune(root, clean, named); err != nil {
			return err
		}
	}
	return nil
}

// cleanName refuses an absolute name or one with `..`; "a/b/" → "a/b".
func cleanName(name string) (string, error) {
	trimmed := strings.TrimSuffix(name, "/")
	if trimmed == "" || strings.HasPrefix(trimmed, "/") {
		return "", fmt.Errorf("entry %q: not a relative path", name)
	}
	for _, part := range strings.Split(trimmed, "/") {
		if part == ".." || part == "" || part == "." {
			return "", fmt.Errorf("entry %q: must not contain %q", name, part)
		}
	}
	return trimmed, nil
}

// checkParents: every directory from root to the entry is a directory (made when missing, 0755),
// none a symbolic link, which could lead out of the volume.
func checkParents(root, name string) error {
	dir := root
	parts := strings.Split(name, "/")
	for _, part := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, part)
		info, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			if err := os.Mkdir(dir, 0o755); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if !info.IsDir() {
			return fmt.Errorf("entry %q: %s is not a directory", name, dir)
		}
	}
	return nil
}

func applyEntry(target string, header *tar.Header, content io.Reader, stderr io.Writer) error {
	info, statErr := os.Lstat(target)
	exists := statErr == nil
	switch header.Typeflag {
	case tar.TypeDir:
		if exists && !info.IsDir() {
			if err := os.RemoveAll(target); err != nil {
				return err
			}
			exists = false
		}
		if !exists {
			if err := os.Mkdir(target, 0o700); err != nil {
				return err
			}
		}
	case tar.TypeReg:
		if exists && !info.Mode().IsRegular() {
			if err := os.RemoveAll(target); err != nil {
				return err
			}
		}
		file, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		_, err = io.Copy(file, content)
		if closeErr := file.Close(); err == nil {
			err = closeErr
		}
		if err != nil {
			return err
		}
	case tar.TypeSymlink:
		temporary := filepath.Join(filepath.Dir(target), ".podrun-link-"+filepath.Base(target))
		_ = os.Remove(temporary)
		if err := os.Symlink(header.Linkname, temporary); err != nil {
			return err
		}
		if exists && info.IsDir() {
			if err := os.RemoveAll(target); err != nil {
				return err
			}
		}
		if err := os.Rename(temporary, target); err != nil {
			return err
		}
		setOwner(target, header, stderr)
		return nil
	default:
		return fmt.Errorf("entry type %q is not supported", string(header.Typeflag))
	}
	setOwner(target, header, stderr)
	// syscall's chmod, not os.Chmod: the mode's setgid bit is 02000 here, as in the archive.
	if err := syscall.Chmod(target, uint32(header.Mode&0o7777)); err != nil {
		fmt.Fprintf(stderr, "warning: chmod %s: %v\n", target, err)
	}
	return nil
}

// setOwner gives the entry the archive's owner when it has another one.
func setOwner(target string, header *tar.Header, stderr io.Writer) {
	info, err := os.Lstat(target)
	if err == nil {
		if stat, ok := info.Sys().(*syscall.Stat_t); ok && int(stat.Uid) == header.Uid && int(stat.Gid) == header.Gid {
			return
		}
	}
	if err := os.Lchown(target, header.Uid, header.Gid); err != nil {
		fmt.Fprintf(stderr, "warning: chown %s: %v\n", target, unwrapPathError(err))
	}
}

func unwrapPathError(err error) error {
	var pathError *fs.PathError
	var linkError *os.LinkError
	if errors.As(err, &pathError) {
		return pathError.Err
	}
	if errors.As(err, &linkError) {
		return linkError.Err
	}
	return err
}

// prune removes under root/owned what the archive did not name (deepest first).
func prune(root, owned string, named map[string]bool) error {
	start := filepath.Join(root, owned)
	var doomed []string
	err := filepath.WalkDir(start, func(path string, entry fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		relative, _ := filepath.Rel(root, path)
		if !named[relative] {
			doomed = append(doomed, path)
			if entry.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Sort(sort.Reverse(sort.StringSlice(doomed)))
	for _, path := range doomed {
		if err := os.RemoveAll(path); err != nil {
			return err
		}
	}
	return nil
}

// read prints the files that exist as one JSON object of base64 contents.
func read(paths []string, stdout io.Writer) error {
	contents := map[string]string{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		contents[path] = base64.StdEncoding.EncodeToString(data)
	}
	return json.NewEncoder(stdout).Encode(contents)
}

// subPath makes root/sub a directory, as the kubelet's SafeMakeDir does: each missing part with
// the root's mode, and none reached through a symbolic link that leads out of root.
func subPath(root, sub string) error {
	clean, err := cleanName(sub)
	if err != nil {
		return err
	}
	rootInfo, err := os.Stat(root)
	if err != nil {
		return err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	target := filepath.Join(root, clean)
	if _, err := os.Stat(target); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(target, rootInfo.Mode().Perm()); err != nil {
			return err
		}
		if err := syscall.Chmod(target, uint32(rootInfo.Mode().Perm())); err != nil {
			return err
		}
	}
	realTarget, err := filepath.EvalSymlinks(target)
	if err != nil {
		return err
	}
	inside, err := filepath.Rel(realRoot, realTarget)
	if err != nil || inside == ".." || strings.HasPrefix(inside, "../") {
		return fmt.Errorf("subpath %q not within volume path %q", realTarget, realRoot)
	}
	return nil
}

// filesMode runs -files, -read or -subpath, and exits; false for the proxy's own arguments.
func filesMode(args []string) bool {
	if len(args) < 2 {
		return false
	}
	var err error
	switch {
	case args[1] == "-files" && len(args) >= 3:
		err = files(args[2], args[3:], os.Stdin, os.Stderr)
	case args[1] == "-read" && len(args) >= 3:
		err = read(args[2:], os.Stdout)
	case args[1] == "-subpath" && len(args) == 4:
		err = subPath(args[2], args[3])
	default:
		return false
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
	return true
}
