// Command engines runs, for the jest suite, what Argo CD and kubectl run:
//   - an Argo CD health script in gopher-lua, with obj handed in as Argo CD hands it;
//   - a YAML text read through gopkg.in/yaml.v2 and turned into JSON as sigs.k8s.io/yaml does.
//
// Request on stdin:  {"lua": [{"script": "...", "obj": {...}}], "yaml": ["text", ...]}
// Answer on stdout:  {"lua": [{"status": "...", "message": "..."}], "yaml": [{"json": ..., "types": {...}} | {"error": "..."}]}
//
// Built by test/go/engines.ts in GOPATH mode against Debian's golang-github-yuin-gopher-lua-dev
// and golang-gopkg-yaml.v2-dev.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
)

type luaRequest struct {
	Script string      `json:"script"`
	Obj    interface{} `json:"obj"`
}

type request struct {
	Lua  []luaRequest `json:"lua"`
	YAML []string     `json:"yaml"`
}

type answer struct {
	GoVersion string         `json:"goVersion"`
	Lua       []healthAnswer `json:"lua"`
	YAML      []yamlAnswer   `json:"yaml"`
}

func main() {
	var req request
	// The live object arrives as JSON; every number becomes float64 here,
	// as Argo CD turns int64 and float64 alike into a float64 LNumber.
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		fmt.Fprintf(os.Stderr, "engines: cannot read the request: %v\n", err)
		os.Exit(2)
	}
	out := answer{GoVersion: runtime.Version(), Lua: []healthAnswer{}, YAML: []yamlAnswer{}}
	for _, r := range req.Lua {
		out.Lua = append(out.Lua, runHealthScript(r.Script, r.Obj))
	}
	for _, text := range req.YAML {
		out.YAML = append(out.YAML, readYAML(text))
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintf(os.Stderr, "engines: cannot write the answer: %v\n", err)
		os.Exit(2)
	}
}
