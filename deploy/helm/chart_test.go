// Package helm tests the chart in contractbot/: helm's linter, and every manifest it
// renders decoded strictly into the Kubernetes API types and held to the policies
// docs/operations.md names.
package helm

import (
	"maps"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

const chartDir = "contractbot"

// TestChartLints: helm lint finds nothing worse than information, with the default
// values and with every option on.
func TestChartLints(t *testing.T) {
	for name, vals := range cases {
		for _, m := range lint.All(chartDir, vals, "contracts", false).Messages {
			if m.Severity >= support.WarningSev {
				t.Errorf("%s: helm lint: %s", name, m)
			}
		}
	}
}

var cases = map[string]map[string]any{
	"defaults": nil,
	"everything": {
		"replicaCount":   5,
		"ingress":        map[string]any{"enabled": true, "className": "nginx", "tlsSecret": "contractbot-tls"},
		"serviceMonitor": map[string]any{"enabled": true, "labels": map[string]any{"release": "prometheus"}},
		"gitCache":       map[string]any{"persistentVolumeClaim": "contractbot-cache"},
		"reconcile":      []any{"acme/contracts"},
		"repo":           map[string]any{"branch": "main"},
		"adminTeam":      "acme/platform",
		"github":         map[string]any{"url": "https://github.example.com/api/v3/"},
		"gitSync":        map[string]any{"env": []any{map[string]any{"name": "GITSYNC_PASSWORD", "valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": "git", "key": "token"}}}}},
	},
	"one replica": {"replicaCount": 1},
}

// TestChartRenders renders each case and checks what a platform team relies on.
func TestChartRenders(t *testing.T) {
	for name, vals := range cases {
		t.Run(name, func(t *testing.T) {
			objs := render(t, vals)
			var dep *appsv1.Deployment
			var svc *corev1.Service
			var pdb *policyv1.PodDisruptionBudget
			var ing *networkingv1.Ingress
			var sm *monitoringv1.ServiceMonitor
			for _, o := range objs {
				switch o := o.(type) {
				case *appsv1.Deployment:
					dep = o
				case *corev1.Service:
					svc = o
				case *policyv1.PodDisruptionBudget:
					pdb = o
				case *networkingv1.Ingress:
					ing = o
				case *monitoringv1.ServiceMonitor:
					sm = o
				default:
					t.Errorf("an unexpected %T", o)
				}
			}
			if dep == nil || svc == nil {
				t.Fatalf("rendered no Deployment or Service: %v", objs)
			}
			replicas := 3
			if r, ok := vals["replicaCount"].(int); ok {
				replicas = r
			}
			if dep.Spec.Replicas == nil || int(*dep.Spec.Replicas) != replicas {
				t.Errorf("replicas %v, want %d", dep.Spec.Replicas, replicas)
			}
			checkPod(t, dep)
			if (pdb != nil) != (replicas > 1) {
				t.Errorf("a PodDisruptionBudget for %d replicas: %v", replicas, pdb != nil)
			}
			if pdb != nil && (pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 || !selects(pdb.Spec.Selector.MatchLabels, dep)) {
				t.Errorf("the PodDisruptionBudget lets more than one replica go, or selects other pods: %+v", pdb.Spec)
			}
			if !selects(svc.Spec.Selector, dep) || !slices.ContainsFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.TargetPort.StrVal == "http" }) {
				t.Errorf("the Service does not reach the pods' http port: %+v", svc.Spec)
			}
			_, wantIngress := vals["ingress"]
			if (ing != nil) != wantIngress {
				t.Errorf("an Ingress: %v, want %v", ing != nil, wantIngress)
			}
			if ing != nil && ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name != svc.Name {
				t.Errorf("the Ingress does not send to the Service")
			}
			_, wantMonitor := vals["serviceMonitor"]
			if (sm != nil) != wantMonitor {
				t.Errorf("a ServiceMonitor: %v, want %v", sm != nil, wantMonitor)
			}
			if sm != nil && (sm.Spec.Endpoints[0].Port != "metrics" || sm.Spec.Endpoints[0].Path != "/metrics" || !selects(sm.Spec.Selector.MatchLabels, dep)) {
				t.Errorf("the ServiceMonitor does not scrape the metrics port: %+v", sm.Spec)
			}
		})
	}
}

// checkPod holds the pod to the policies: non-root, no privilege escalation, a
// read-only root filesystem with volumes where serve writes, probes on /healthz and
// /readyz, resources, and every credential from the existing Secret.
func checkPod(t *testing.T, dep *appsv1.Deployment) {
	t.Helper()
	pod := dep.Spec.Template.Spec
	if !selects(dep.Spec.Selector.MatchLabels, dep) {
		t.Errorf("the Deployment's selector does not match its pods")
	}
	if sc := pod.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		t.Errorf("the pod may run as root: %+v", sc)
	}
	mounts := map[string]bool{}
	for _, c := range pod.Containers {
		sc := c.SecurityContext
		switch {
		case sc == nil:
			t.Errorf("container %s has no securityContext", c.Name)
			continue
		case sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot:
			t.Errorf("container %s may run as root", c.Name)
		case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
			t.Errorf("container %s allows privilege escalation", c.Name)
		case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
			t.Errorf("container %s has a writable root filesystem", c.Name)
		case sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL"):
			t.Errorf("container %s keeps its capabilities", c.Name)
		}
		if c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() || c.Resources.Requests.Cpu().IsZero() {
			t.Errorf("container %s has no CPU request or memory request and limit: %+v", c.Name, c.Resources)
		}
		for _, m := range c.VolumeMounts {
			if !m.ReadOnly {
				mounts[c.Name+":"+m.MountPath] = true
			}
		}
		for _, e := range c.Env {
			if e.Value != "" && (strings.Contains(e.Name, "SECRET") || strings.Contains(e.Name, "TOKEN") || strings.Contains(e.Name, "KEY")) {
				t.Errorf("container %s: %s is a literal, not from the Secret", c.Name, e.Name)
			}
		}
	}
	bot := pod.Containers[0]
	if bot.Name != "contractbot" {
		t.Fatalf("the first container is %s", bot.Name)
	}
	for _, p := range []struct {
		probe *corev1.Probe
		path  string
	}{{bot.LivenessProbe, "/healthz"}, {bot.ReadinessProbe, "/readyz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil || p.probe.HTTPGet.Path != p.path || p.probe.HTTPGet.Port.StrVal != "http" {
			t.Errorf("want a probe on %s of the http port: %+v", p.path, p.probe)
		}
	}
	for _, w := range []string{"/var/cache/contractbot", "/tmp"} {
		if !mounts["contractbot:"+w] {
			t.Errorf("serve writes to %s, which is no writable volume (the root filesystem is read-only): %v", w, mounts)
		}
	}
	args := strings.Join(bot.Args, " ")
	for _, want := range []string{"serve", "--cache-dir=/var/cache/contractbot", "--repo=/repo/current", "--app-id=$(CONTRACTBOT_APP_ID)", "--app-key-file=/etc/contractbot/app-key.pem", "--metrics-addr=0.0.0.0:9090"} {
		if !strings.Contains(args, want) {
			t.Errorf("serve's arguments lack %s: %s", want, args)
		}
	}
	fromSecret := map[string]string{}
	for _, e := range bot.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name == "contractbot" {
			fromSecret[e.Name] = e.ValueFrom.SecretKeyRef.Key
		}
	}
	for name, key := range map[string]string{"CONTRACTBOT_APP_ID": "app-id", "CONTRACTBOT_WEBHOOK_SECRET": "webhook-secret", "CONTRACTBOT_STATE_KEY": "state-key", "SLACK_BOT_TOKEN": "slack-token"} {
		if fromSecret[name] != key {
			t.Errorf("%s is not the key %s of the Secret contractbot: %v", name, key, fromSecret)
		}
	}
	var keyFromSecret bool
	for _, v := range pod.Volumes {
		if v.Secret != nil && v.Secret.SecretName == "contractbot" && len(v.Secret.Items) == 1 && v.Secret.Items[0].Key == "app-key.pem" {
			keyFromSecret = true
		}
	}
	if !keyFromSecret {
		t.Errorf("the App's key is not mounted from the Secret contractbot")
	}
}

func selects(sel map[string]string, dep *appsv1.Deployment) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if dep.Spec.Template.Labels[k] != v {
			return false
		}
	}
	return true
}

// render renders the chart with vals and decodes every manifest strictly (unknown and
// duplicate fields refused) into client-go's types, and the ServiceMonitor into
// prometheus-operator's.
func render(t *testing.T, vals map[string]any) []runtime.Object {
	t.Helper()
	chrt, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	values, err := chartutil.ToRenderValues(chrt, vals, chartutil.ReleaseOptions{Name: "contractbot", Namespace: "contracts", IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	out, err := engine.Render(chrt, values)
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := monitoringv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	strict := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{Yaml: true, Strict: true})
	var objs []runtime.Object
	for _, name := range slices.Sorted(maps.Keys(out)) {
		for i, doc := range strings.Split(out[name], "\n---") {
			if strings.TrimSpace(doc) == "" || !strings.HasSuffix(name, ".yaml") {
				continue
			}
			obj, _, err := strict.Decode([]byte(doc), nil, nil)
			if err != nil {
				t.Fatalf("%s (document %d): %v\n%s", name, i+1, err, doc)
			}
			objs = append(objs, obj)
		}
	}
	return objs
}
