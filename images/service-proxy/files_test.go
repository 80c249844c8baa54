package main

import (
	"archive/tar"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

type entry struct {
	name, body, link string
	dir              bool
	mode             int64
}

func archive(t *testing.T, entries ...entry) *bytes.Buffer {
	t.Helper()
	var buffer bytes.Buffer
	writer := tar.NewWriter(&buffer)
	uid, gid := os.Getuid(), os.Getgid()
	for _, e := range entries {
		header := &tar.Header{Name: e.name, Mode: e.mode, Uid: uid, Gid: gid}
		switch {
		case e.dir:
			header.Typeflag = tar.TypeDir
		case e.link != "":
			header.Typeflag, header.Linkname = tar.TypeSymlink, e.link
		default:
			header.Typeflag, header.Size = tar.TypeReg, int64(len(e.body))
		}
		if err := writer.WriteHeader(header); err != nil {
			t.Fatal(err)
		}
		if header.Typeflag == tar.TypeReg {
			_, _ = writer.Write([]byte(e.body))
		}
	}
	_ = writer.Close()
	return &buffer
}

func apply(t *testing.T, root string, owned []string, entries ...entry) string {
	t.Helper()
	var stderr bytes.Buffer
	if err := files(root, owned, archive(t, entries...), &stderr); err != nil {
		t.Fatal(err)
	}
	return stderr.String()
}

func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A configMap volume as the atomic writer lays it out, then its update: the new timestamped
// directory, `..data` swapped, the old directory and a key that is gone removed.
func TestFilesSwapsDataAndPrunes(t *testing.T) {
	root := t.TempDir()
	first := []entry{
		{name: "volumes/", dir: true, mode: 0o750},
		{name: "volumes/config/", dir: true, mode: 0o777},
		{name: "volumes/config/..2026_01_01_00_00_00.1/", dir: true, mode: 0o755},
		{name: "volumes/config/..2026_01_01_00_00_00.1/a", body: "one", mode: 0o644},
		{name: "volumes/config/..2026_01_01_00_00_00.1/gone", body: "x", mode: 0o600},
		{name: "volumes/config/..data", link: "..2026_01_01_00_00_00.1"},
		{name: "volumes/config/a", link: "..data/a"},
		{name: "volumes/config/gone", link: "..data/gone"},
	}
	apply(t, root, []string{"volumes/config"}, first...)
	if got := readText(t, filepath.Join(root, "volumes/config/a")); got != "one" {
		t.Fatalf("a = %q", got)
	}
	info, _ := os.Stat(filepath.Join(root, "volumes/config/..2026_01_01_00_00_00.1/gone"))
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("gone mode %v", info.Mode())
	}
	dirInfo, _ := os.Stat(filepath.Join(root, "volumes/config"))
	if dirInfo.Mode().Perm() != 0o777 {
		t.Fatalf("volume dir mode %v", dirInfo.Mode())
	}
	var before syscall.Stat_t
	_ = syscall.Stat(filepath.Join(root, "volumes/config"), &before)
	apply(t, root, []string{"volumes/config"},
		entry{name: "volumes/config/", dir: true, mode: 0o777},
		entry{name: "volumes/config/..2026_01_01_00_00_01.2/", dir: true, mode: 0o755},
		entry{name: "volumes/config/..2026_01_01_00_00_01.2/a", body: "two", mode: 0o644},
		entry{name: "volumes/config/..data", link: "..2026_01_01_00_00_01.2"},
		entry{name: "volumes/config/a", link: "..data/a"},
	)
	if got := readText(t, filepath.Join(root, "volumes/config/a")); got != "two" {
		t.Fatalf("a after the update = %q", got)
	}
	names, _ := os.ReadDir(filepath.Join(root, "volumes/config"))
	var listed []string
	for _, name := range names {
		listed = append(listed, name.Name())
	}
	if strings.Join(listed, ",") != "..2026_01_01_00_00_01.2,..data,a" {
		t.Fatalf("left: %v", listed)
	}
	var after syscall.Stat_t
	_ = syscall.Stat(filepath.Join(root, "volumes/config"), &after)
	if before.Ino != after.Ino {
		t.Fatal("the volume's directory was replaced: a bind mount of it would no longer see it")
	}
}

func TestFilesWritesInPlace(t *testing.T) {
	root := t.TempDir()
	apply(t, root, nil, entry{name: "etc-hosts", body: "first\n", mode: 0o644})
	var before syscall.Stat_t
	_ = syscall.Stat(filepath.Join(root, "etc-hosts"), &before)
	apply(t, root, nil, entry{name: "etc-hosts", body: "second\n", mode: 0o644})
	var after syscall.Stat_t
	_ = syscall.Stat(filepath.Join(root, "etc-hosts"), &after)
	if before.Ino != after.Ino || readText(t, filepath.Join(root, "etc-hosts")) != "second\n" {
		t.Fatal("the file was not rewritten in place")
	}
	if after.Mode&0o7777 != 0o644 {
		t.Fatalf("mode %o", after.Mode&0o7777)
	}
}

func TestFilesKeepsSetgid(t *testing.T) {
	root := t.TempDir()
	apply(t, root, nil, entry{name: "empty/cache/", dir: true, mode: 0o2777})
	var stat syscall.Stat_t
	_ = syscall.Stat(filepath.Join(root, "empty/cache"), &stat)
	if stat.Mode&0o7777 != 0o2777 {
		t.Fatalf("mode %o", stat.Mode&0o7777)
	}
}

func TestFilesRefusesEscapes(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	_ = os.Symlink(outside, filepath.Join(root, "link"))
	for _, name := range []string{"../x", "/etc/x", "a/../../x", "link/x"} {
		var stderr bytes.Buffer
		err := files(root, nil, archive(t, entry{name: name, body: "x", mode: 0o644}), &stderr)
		if err == nil {
			t.Fatalf("%s: accepted", name)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatal("a file was written outside the root")
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "log"), []byte("bye\n"), 0o644)
	var stdout bytes.Buffer
	if err := read([]string{filepath.Join(dir, "log"), filepath.Join(dir, "missing")}, &stdout); err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	_ = json.Unmarshal(stdout.Bytes(), &got)
	data, _ := base64.StdEncoding.DecodeString(got[filepath.Join(dir, "log")])
	if len(got) != 1 || string(data) != "bye\n" {
		t.Fatalf("%v", got)
	}
}

func TestSubPath(t *testing.T) {
	root := t.TempDir()
	_ = os.Chmod(root, 0o777)
	if err := subPath(root, "a/b"); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(filepath.Join(root, "a/b"))
	if !info.IsDir() || info.Mode().Perm() != 0o777 {
		t.Fatalf("a/b: %v", info.Mode())
	}
	_ = os.Symlink(t.TempDir(), filepath.Join(root, "out"))
	if err := subPath(root, "out"); err == nil || !strings.Contains(err.Error(), "not within volume path") {
		t.Fatalf("out: %v", err)
	}
	if err := subPath(root, "../x"); err == nil {
		t.Fatal("../x accepted")
	}
}
