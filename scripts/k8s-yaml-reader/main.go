// k8s-yaml-reader prints what kubectl decodes from the manifest on stdin, for podrun's
// differential test (test/manifest/yaml-differential.e2e.test.ts).
//
// kubectl reads `-f` files with k8s.io/cli-runtime's StreamVisitor: an
// apimachinery YAMLOrJSONDecoder (a JSON stream when the input starts with `{`, else YAML
// documents split on `---` lines, each converted by sigs.k8s.io/yaml over go-yaml v2), and it skips
// documents that decode to nothing or null. apimachinery is not packaged in Debian, so its
// splitting is mirrored here (staging/src/k8s.io/apimachinery/pkg/util/yaml/decoder.go);
// the YAML itself is read by sigs.k8s.io/yaml, kubectl's own reader.
//
// Output: one JSON line, {"documents":[...]} or {"error":"..."} (exit status 1).
// With -batch, stdin is a JSON array of manifests and the output a JSON array of those results.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"sigs.k8s.io/yaml"
)

func main() {
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if len(os.Args) > 1 && os.Args[1] == "-batch" {
		var texts []string
		if err := json.Unmarshal(input, &texts); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		results := make([]json.RawMessage, 0, len(texts))
		for _, text := range texts {
			results = append(results, read([]byte(text)))
		}
		out, _ := json.Marshal(results)
		fmt.Println(string(out))
		return
	}
	out := read(input)
	fmt.Println(string(out))
	if bytes.HasPrefix(out, []byte(`{"error"`)) {
		os.Exit(1)
	}
}

func read(input []byte) json.RawMessage {
	docs, err := decode(input)
	var out []byte
	if err != nil {
		out, _ = json.Marshal(map[string]string{"error": err.Error()})
	} else {
		if docs == nil {
			docs = []json.RawMessage{}
		}
		out, _ = json.Marshal(map[string]interface{}{"documents": docs})
	}
	return out
}

// decode returns the JSON of every document kubectl would go on to build an object from.
func decode(input []byte) ([]json.RawMessage, error) {
	// kubectl's FileVisitor reads files through unicode.BOMOverride, which drops a UTF-8 BOM
	// (it also decodes UTF-16 with a BOM, which podrun does not).
	input = bytes.TrimPrefix(input, []byte("\xef\xbb\xbf"))
	raws, err := splitDocuments(input)
	if err != nil {
		return nil, err
	}
	var docs []json.RawMessage
	for _, raw := range raws {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		if err := checkNumbers(raw); err != nil {
			return nil, err
		}
		docs = append(docs, json.RawMessage(raw))
	}
	return docs, nil
}

// checkNumbers does what kubectl's unstructured decoding does next (apimachinery util/json
// ConvertInterfaceNumbers): every number must be an int64 or a float64.
func checkNumbers(raw []byte) error {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	var value interface{}
	if err := decoder.Decode(&value); err != nil {
		return err
	}
	return walkNumbers(value)
}

func walkNumbers(value interface{}) error {
	switch v := value.(type) {
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return nil
		}
		_, err := v.Float64()
		return err
	case map[string]interface{}:
		for _, item := range v {
			if err := walkNumbers(item); err != nil {
				return err
			}
		}
	case []interface{}:
		for _, item := range v {
			if err := walkNumbers(item); err != nil {
				return err
			}
		}
	}
	return nil
}

func splitDocuments(input []byte) ([][]byte, error) {
	if bytes.HasPrefix(bytes.TrimLeftFunc(input, unicode.IsSpace), []byte("{")) {
		return jsonStream(input)
	}
	var raws [][]byte
	for _, chunk := range yamlChunks(input) {
		if chunk.err != nil {
			return nil, chunk.err
		}
		raw, err := yaml.YAMLToJSON(chunk.text)
		if err != nil {
			return nil, err
		}
		raws = append(raws, raw)
	}
	return raws, nil
}

func jsonStream(input []byte) ([][]byte, error) {
	decoder := json.NewDecoder(bytes.NewReader(input))
	var raws [][]byte
	for {
		var raw json.RawMessage
		if err := decoder.Decode(&raw); err == io.EOF {
			return raws, nil
		} else if err != nil {
			return nil, err
		}
		raws = append(raws, raw)
	}
}

type chunk struct {
	text []byte
	err  error
}

// yamlChunks splits lines as apimachinery's YAMLReader does: bufio's ReadLine drops "\n" and a
// "\r" before it, every line gets "\n" back, and a line starting with "---" ends a document.
func yamlChunks(input []byte) []chunk {
	reader := bufio.NewReader(bytes.NewReader(input))
	var chunks []chunk
	var buffer bytes.Buffer
	for {
		line, err := readLine(reader)
		if err != nil && err != io.EOF {
			return append(chunks, chunk{err: err})
		}
		if bytes.HasPrefix(line, []byte("---")) {
			trimmed := strings.TrimSpace(string(line[3:]))
			if len(trimmed) > 0 && trimmed[0] != '#' {
				return append(chunks, chunk{err: fmt.Errorf("invalid Yaml document separator: %s", trimmed)})
			}
			if buffer.Len() != 0 {
				chunks = append(chunks, chunk{text: append([]byte(nil), buffer.Bytes()...)})
				buffer.Reset()
				continue
			}
			if err == io.EOF {
				return chunks
			}
		}
		if err == io.EOF {
			if buffer.Len() != 0 {
				chunks = append(chunks, chunk{text: buffer.Bytes()})
			}
			return chunks
		}
		buffer.Write(line)
	}
}

func readLine(reader *bufio.Reader) ([]byte, error) {
	var buffer bytes.Buffer
	isPrefix, err := true, error(nil)
	var line []byte
	for isPrefix && err == nil {
		line, isPrefix, err = reader.ReadLine()
		buffer.Write(line)
	}
	buffer.WriteByte('\n')
	return buffer.Bytes(), err
}
