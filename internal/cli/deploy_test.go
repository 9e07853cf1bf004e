package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/weir-engine/weir/internal/cluster"
)

// manifest is what the test reads of a Kubernetes object.
type manifest struct {
	Kind     string                `yaml:"kind"`
	Metadata struct{ Name string } `yaml:"metadata"`
	Data     map[string]string     `yaml:"data"`
	Spec     struct {
		Template struct {
			Spec struct {
				Containers []struct {
					Name         string   `yaml:"name"`
					Image        string   `yaml:"image"`
					Args         []string `yaml:"args"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name      string `yaml:"name"`
					ConfigMap *struct {
						Name string `yaml:"name"`
					} `yaml:"configMap"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// The session cluster's manifests (deploy/kubernetes/*.yaml; not its
// subdirectories) parse; the ConfigMap's weir.yaml loads with keys the
// processes know; each Deployment runs the image's weir with arguments
// that parse as the command's flags, and reads the ConfigMap at the path
// its --config names.
func TestKubernetesManifests(t *testing.T) {
	files, err := filepath.Glob("../../deploy/kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("manifests: %v (%d files)", err, len(files))
	}
	var objs []manifest
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var m manifest
			if err := dec.Decode(&m); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			objs = append(objs, m)
		}
	}
	configMaps := map[string]string{}
	kinds := map[string]int{}
	for _, m := range objs {
		kinds[m.Kind]++
		if m.Kind != "ConfigMap" {
			continue
		}
		path := filepath.Join(t.TempDir(), "weir.yaml")
		if err := os.WriteFile(path, []byte(m.Data["weir.yaml"]), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := cluster.LoadConfig(path)
		if err != nil {
			t.Fatalf("ConfigMap %s: %v", m.Metadata.Name, err)
		}
		if len(c) == 0 {
			t.Fatalf("ConfigMap %s has no weir.yaml", m.Metadata.Name)
		}
		configMaps[m.Metadata.Name] = path
	}
	commands := map[string]func() *cobra.Command{
		"jobmanager":  func() *cobra.Command { return newJobManagerCmd(nil, io.Discard) },
		"taskmanager": func() *cobra.Command { return newTaskManagerCmd(nil, io.Discard, io.Discard) },
	}
	podIP := regexp.MustCompile(`\$\(POD_IP\)`)
	ran := map[string]bool{}
	for _, m := range objs {
		if m.Kind != "Deployment" {
			continue
		}
		spec := m.Spec.Template.Spec
		for _, c := range spec.Containers {
			if c.Image != "weir:latest" || len(c.Args) == 0 || commands[c.Args[0]] == nil {
				t.Fatalf("Deployment %s: container %s runs %s %q, want weir:latest jobmanager or taskmanager", m.Metadata.Name, c.Name, c.Image, c.Args)
			}
			cmd := commands[c.Args[0]]()
			args := make([]string, len(c.Args)-1)
			for i, a := range c.Args[1:] {
				args[i] = podIP.ReplaceAllString(a, "10.1.2.3")
			}
			if err := cmd.ParseFlags(args); err != nil {
				t.Fatalf("Deployment %s: %q: %v", m.Metadata.Name, c.Args, err)
			}
			for _, name := range []string{"rpc-addr", "rest-addr", "data-addr"} {
				if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
					if err := checkHostPort(f.Value.String(), true); err != nil {
						t.Errorf("Deployment %s: --%s %s: %v", m.Metadata.Name, name, f.Value, err)
					}
				}
			}
			config := cmd.Flags().Lookup("config").Value.String()
			mounted := ""
			for _, vm := range c.VolumeMounts {
				if filepath.Join(vm.MountPath, "weir.yaml") != config {
					continue
				}
				for _, v := range spec.Volumes {
					if v.Name == vm.Name && v.ConfigMap != nil {
						mounted = v.ConfigMap.Name
					}
				}
			}
			if configMaps[mounted] == "" {
				t.Fatalf("Deployment %s: --config %s is not a ConfigMap's weir.yaml", m.Metadata.Name, config)
			}
			if err := applyConfig(cmd, configMaps[mounted], c.Args[0] == "jobmanager"); err != nil {
				t.Errorf("Deployment %s: the ConfigMap does not apply: %v", m.Metadata.Name, err)
			}
			ran[c.Args[0]] = true
		}
	}
	if !ran["jobmanager"] || !ran["taskmanager"] || kinds["Service"] == 0 {
		t.Errorf("kinds %v, commands %v: want a JobManager and a TaskManager Deployment and a Service", kinds, ran)
	}
}

// The Dockerfile builds cmd/weir statically and runs it as a non-root
// user.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{"CGO_ENABLED=0 go build", "./cmd/weir", "\nUSER 65532:65532\n", `ENTRYPOINT ["/usr/local/bin/weir"]`} {
		if !strings.Contains(s, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	if n := strings.Count(s, "\nFROM "); n != 2 {
		t.Errorf("Dockerfile: %d stages, want two (build, then the image)", n)
	}
}
