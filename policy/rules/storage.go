package rules

import (
	"fmt"
	"slices"
	"strings"
)

// aksBuiltinClasses are the StorageClasses AKS ships; all of them delete
// the volume with its claim (reclaimPolicy Delete).
var aksBuiltinClasses = []string{
	"default", "managed", "managed-premium", "managed-csi", "managed-csi-premium",
	"azurefile", "azurefile-premium", "azurefile-csi", "azurefile-csi-premium",
	"azureblob-nfs-premium", "azureblob-fuse-premium",
}

// isCheckpointName reports whether a storage object is named for checkpoints.
func isCheckpointName(name string) bool { return strings.Contains(strings.ToLower(name), "checkpoint") }

// reclaimPolicy is a StorageClass's reclaimPolicy; Kubernetes defaults to
// Delete.
func reclaimPolicy(sc Resource) string {
	if p := str(sc.Inputs["reclaimPolicy"]); p != "" {
		return p
	}
	return "Delete"
}

var ruleStorageCheckpointRetain = Rule{
	ID:       "AKSML-STO-001",
	Title:    "Checkpoint storage uses a StorageClass with reclaimPolicy Retain",
	Severity: Mandatory,
	Source:   srcMLOps + ": use a Retain reclaim policy for production checkpoints (ml-checkpoints-azurefile); SPEC C3.2, C3.4",
	Stack: func(s *Stack) []Finding {
		classes := map[string]Resource{}
		var out []Finding
		for _, r := range s.Resources {
			if !isKind(r, "storage.k8s.io", "StorageClass") {
				continue
			}
			classes[objName(r)] = r
			if isCheckpointName(objName(r)) && reclaimPolicy(r) != "Retain" {
				out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
					"%s holds checkpoints but has reclaimPolicy %s; set reclaimPolicy: Retain so that deleting a claim does not delete the only recovery point",
					describe(r), reclaimPolicy(r))})
			}
		}
		for _, r := range s.Resources {
			if !isKind(r, "", "PersistentVolumeClaim") || !isCheckpointName(objName(r)) {
				continue
			}
			class := str(r.Get("spec.storageClassName"))
			sc, defined := classes[class]
			var why string
			switch {
			case r.Get("spec.storageClassName") == Unknown:
				continue
			case class == "":
				why = "uses the cluster's default StorageClass (reclaimPolicy Delete)"
			case defined && reclaimPolicy(sc) != "Retain" && !isCheckpointName(class):
				why = fmt.Sprintf("uses StorageClass %s with reclaimPolicy %s", class, reclaimPolicy(sc))
			case !defined && slices.Contains(aksBuiltinClasses, class):
				why = fmt.Sprintf("uses the AKS built-in StorageClass %s, which deletes the volume with its claim", class)
			default:
				continue
			}
			out = append(out, Finding{URN: resourceRef(r), Message: fmt.Sprintf(
				"%s holds checkpoints but %s; set storageClassName to a Retain class such as ml-checkpoints-azurefile",
				describe(r), why)})
		}
		return out
	},
}
