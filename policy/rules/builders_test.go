package rules

import (
	"fmt"
	"strings"
)

// Builders for the rule tests. goodStack is a small platform that follows
// every rule; each test case breaks it in one place.

type obj = map[string]any
type arr = []any

const digest = "@sha256:0000000000000000000000000000000000000000000000000000000000000000"

func urnOf(typ, name string) string { return "urn:pulumi:test::aksml::" + typ + "::" + name }

// resource builds a Resource with a test URN.
func resource(typ, name string, inputs obj) Resource {
	return Resource{Type: typ, Name: name, URN: urnOf(typ, name), Inputs: inputs}
}

// kube builds a Kubernetes object: token "kubernetes:<apiVersion>:<kind>".
func kube(apiVersion, kind, namespace, name string, labels obj, spec obj) Resource {
	meta := obj{"name": name}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	if labels != nil {
		meta["labels"] = labels
	}
	in := obj{"apiVersion": apiVersion, "kind": kind, "metadata": meta}
	if spec != nil {
		in["spec"] = spec
	}
	token := apiVersion
	if !strings.Contains(apiVersion, "/") {
		token = "core/" + apiVersion
	}
	logical := name
	if namespace != "" {
		logical = namespace + "-" + name
	}
	return resource("kubernetes:"+token+":"+kind, logical, in)
}

// agentPool is a compliant A100 training pool.
func agentPool(name string) Resource {
	return resource("azure-native:containerservice:AgentPool", name, obj{
		"agentPoolName":     name,
		"resourceName":      "aks",
		"resourceGroupName": "rg",
		"vmSize":            "Standard_NC24ads_A100_v4",
		"mode":              "User",
		"enableAutoScaling": true,
		"minCount":          0.0,
		"maxCount":          4.0,
		"count":             0.0,
		"nodeTaints":        arr{"sku=gpu:NoSchedule"},
		"nodeLabels":        obj{"accelerator": "nvidia", "workload": "training"},
		"availabilityZones": arr{"1", "2", "3"},
		"vnetSubnetID":      nodeSubnet,
	})
}

// spotPool is a compliant spot A100 pool.
func spotPool(name string) Resource {
	r := agentPool(name)
	r.Inputs["scaleSetPriority"] = "Spot"
	r.Inputs["scaleSetEvictionPolicy"] = "Delete"
	r.Inputs["spotMaxPrice"] = -1.0
	r.Inputs["maxCount"] = 8.0
	r.Inputs["nodeTaints"] = arr{"sku=gpu:NoSchedule", "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"}
	r.Inputs["nodeLabels"] = obj{"accelerator": "nvidia", "workload": "gpu-spot"}
	return r
}

// managedPoolStack is a deployment stack whose ARM template creates a
// Managed H100 pool (explicit count from a parameter, no autoscaler) and,
// written after it, a None (bring-your-own stack) A100 pool that the
// autoscaler scales and that sends no count.
func managedPoolStack(name string) Resource {
	return resource("azure-native:resources/v20240301:DeploymentStackAtResourceGroup", name, obj{
		"resourceGroupName":   "rg",
		"deploymentStackName": name,
		"template": obj{
			"$schema":        "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
			"contentVersion": "1.0.0.0",
			"parameters": obj{
				"clusterName":  obj{"type": "string"},
				"poolName":     obj{"type": "string"},
				"count":        obj{"type": "int", "defaultValue": 0.0},
				"nodeSubnetId": obj{"type": "string"},
			},
			"resources": arr{obj{
				"type":       "Microsoft.ContainerService/managedClusters/agentPools",
				"apiVersion": "2026-02-02-preview",
				"name":       "[format('{0}/{1}', parameters('clusterName'), parameters('poolName'))]",
				"properties": obj{
					"vmSize":            "Standard_ND96isr_H100_v5",
					"mode":              "User",
					"enableAutoScaling": false,
					"count":             "[parameters('count')]",
					"nodeTaints":        arr{"sku=gpu:NoSchedule"},
					"nodeLabels":        obj{"accelerator": "nvidia", "workload": "training"},
					"availabilityZones": arr{"1"},
					"vnetSubnetID":      "[parameters('nodeSubnetId')]",
					"gpuProfile":        obj{"driver": "Install", "nvidia": obj{"managementMode": "Managed", "migStrategy": "None"}},
				},
			}, obj{
				"type":       "Microsoft.ContainerService/managedClusters/agentPools",
				"apiVersion": "2026-02-02-preview",
				"name":       "[format('{0}/{1}', parameters('clusterName'), 'gpubyo')]",
				"dependsOn":  arr{"[resourceId('Microsoft.ContainerService/managedClusters/agentPools', parameters('clusterName'), parameters('poolName'))]"},
				"properties": obj{
					"vmSize":            "Standard_NC24ads_A100_v4",
					"mode":              "User",
					"enableAutoScaling": true,
					"minCount":          0.0,
					"maxCount":          2.0,
					"nodeTaints":        arr{"sku=gpu:NoSchedule"},
					"nodeLabels":        obj{"accelerator": "nvidia", "workload": "training"},
					"availabilityZones": arr{"1", "2", "3"},
					"vnetSubnetID":      "[parameters('nodeSubnetId')]",
					"gpuProfile":        obj{"driver": "None", "nvidia": obj{"managementMode": "Unmanaged"}},
				},
			}},
		},
		"parameters": obj{
			"clusterName":  obj{"value": "aks"},
			"poolName":     obj{"value": "gpuh100"},
			"nodeSubnetId": obj{"value": nodeSubnet},
		},
	})
}

// managedCluster is an AKS cluster with managed Prometheus metrics on.
func managedCluster() Resource {
	return resource("azure-native:containerservice:ManagedCluster", "aks", obj{
		"resourceName":        "aks",
		"azureMonitorProfile": obj{"metrics": obj{"enabled": true}},
	})
}

// monitorStack is a deployment stack wiring managed Prometheus as
// Microsoft's onboarding template does (DCR to the workspace, DCRA on the
// cluster) with a rule group scoped to the workspace.
func monitorStack() Resource {
	ws := "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Monitor/accounts/amw"
	return resource("azure-native:resources/v20240301:DeploymentStackAtResourceGroup", "monitor", obj{
		"template": obj{
			"parameters": obj{"workspaceId": obj{"type": "string"}},
			"resources": arr{
				obj{"type": "Microsoft.Insights/dataCollectionRules", "name": "MSProm-westeurope-aks", "properties": obj{
					"dataSources":  obj{"prometheusForwarder": arr{obj{"name": "PrometheusDataSource", "streams": arr{"Microsoft-PrometheusMetrics"}}}},
					"destinations": obj{"monitoringAccounts": arr{obj{"name": "MonitoringAccount1", "accountResourceId": "[parameters('workspaceId')]"}}},
					"dataFlows":    arr{obj{"streams": arr{"Microsoft-PrometheusMetrics"}, "destinations": arr{"MonitoringAccount1"}}},
				}},
				obj{"type": "Microsoft.ContainerService/managedClusters/providers/dataCollectionRuleAssociations", "name": "aks/microsoft.insights/MSProm-westeurope-aks",
					"properties": obj{"dataCollectionRuleId": "[resourceId('Microsoft.Insights/dataCollectionRules', 'MSProm-westeurope-aks')]"}},
				obj{"type": "Microsoft.AlertsManagement/prometheusRuleGroups", "name": "aks-alerts", "properties": obj{"scopes": arr{"[parameters('workspaceId')]"}}},
			},
		},
		"parameters": obj{"workspaceId": obj{"value": ws}},
	})
}

// offManagedPools is a node affinity that keeps a DaemonSet off gpuh100.
func offManagedPools() obj {
	return obj{"nodeAffinity": obj{"requiredDuringSchedulingIgnoredDuringExecution": obj{
		"nodeSelectorTerms": arr{obj{"matchExpressions": arr{obj{
			"key": "kubernetes.azure.com/agentpool", "operator": "NotIn", "values": arr{"gpuh100"},
		}}}},
	}}}
}

// daemonSet is a GPU-node DaemonSet running image, kept off Managed pools.
func daemonSet(name, image string) Resource {
	return kube("apps/v1", "DaemonSet", "kube-system", name, obj{"app": name}, obj{
		"selector": obj{"matchLabels": obj{"app": name}},
		"template": obj{
			"metadata": obj{"labels": obj{"app": name}},
			"spec": obj{
				"priorityClassName": "system-node-critical",
				"nodeSelector":      obj{"accelerator": "nvidia"},
				"affinity":          offManagedPools(),
				"tolerations":       arr{obj{"operator": "Exists"}},
				"containers": arr{obj{
					"name":  name,
					"image": image,
				}},
			},
		},
	})
}

// gpuContainer is a training container asking for one GPU with requests ==
// limits, mounting checkpoints and /dev/shm.
func gpuContainer(name string) obj {
	rl := func() obj { return obj{"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": 1.0} }
	return obj{
		"name":      name,
		"image":     "myacr.azurecr.io/pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime" + digest,
		"resources": obj{"requests": rl(), "limits": rl()},
		"env": arr{
			obj{"name": "NCCL_SOCKET_IFNAME", "value": "eth0"},
			obj{"name": "NCCL_IB_DISABLE", "value": "1"},
			obj{"name": "TORCH_NCCL_ASYNC_ERROR_HANDLING", "value": "1"},
		},
		"volumeMounts": arr{
			obj{"name": "checkpoints", "mountPath": "/checkpoints"},
			obj{"name": "shm", "mountPath": "/dev/shm"},
		},
	}
}

// gpuPodSpec is a compliant training pod spec.
func gpuPodSpec(restartPolicy string) obj {
	return obj{
		"restartPolicy":                 restartPolicy,
		"terminationGracePeriodSeconds": 120.0,
		"priorityClassName":             "training-batch",
		"nodeSelector":                  obj{"accelerator": "nvidia", "workload": "training"},
		"tolerations":                   arr{obj{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}},
		"containers":                    arr{gpuContainer("trainer")},
		"volumes": arr{
			obj{"name": "checkpoints", "persistentVolumeClaim": obj{"claimName": "model-checkpoints"}},
			obj{"name": "shm", "emptyDir": obj{"medium": "Memory", "sizeLimit": "8Gi"}},
		},
	}
}

// trainingJob is a compliant checkpointed GPU Job queued to Kueue.
func trainingJob(ns, name string) Resource {
	r := kube("batch/v1", "Job", ns, name, obj{"kueue.x-k8s.io/queue-name": "gpu-queue"}, obj{
		"suspend":                 true,
		"backoffLimit":            6.0,
		"activeDeadlineSeconds":   86400.0,
		"ttlSecondsAfterFinished": 86400.0,
		"podFailurePolicy": obj{"rules": arr{obj{
			"action": "Ignore", "onPodConditions": arr{obj{"type": "DisruptionTarget"}},
		}}},
		"template": obj{
			"metadata": obj{"labels": obj{"app": name}},
			"spec":     gpuPodSpec("Never"),
		},
	})
	r.Inputs["metadata"].(obj)["annotations"] = obj{"pulumi.com/skipAwait": "true"}
	return r
}

// pytorchJob is a compliant two-replica PyTorchJob.
func pytorchJob(ns, name string) Resource {
	replica := func() obj {
		return obj{
			"replicas":      1.0,
			"restartPolicy": "OnFailure",
			"template": obj{
				"metadata": obj{"labels": obj{"training-job": name}},
				"spec":     gpuPodSpec("OnFailure"),
			},
		}
	}
	return kube("kubeflow.org/v1", "PyTorchJob", ns, name, obj{"kueue.x-k8s.io/queue-name": "gpu-queue"}, obj{
		"runPolicy": obj{
			"cleanPodPolicy":          "None",
			"backoffLimit":            3.0,
			"activeDeadlineSeconds":   86400.0,
			"ttlSecondsAfterFinished": 86400.0,
		},
		"pytorchReplicaSpecs": obj{"Master": replica(), "Worker": replica()},
	})
}

// ncclPolicy is the AKS MLOps best practices' allow-pytorch-nccl NetworkPolicy for a job.
func ncclPolicy(ns, job string) Resource {
	sel := obj{"matchLabels": obj{"training-job": job}}
	return kube("networking.k8s.io/v1", "NetworkPolicy", ns, "allow-"+job+"-nccl", nil, obj{
		"podSelector": sel,
		"policyTypes": arr{"Ingress", "Egress"},
		"ingress":     arr{obj{"from": arr{obj{"podSelector": sel}}}},
		"egress": arr{
			obj{"to": arr{obj{"podSelector": sel}}},
			obj{
				"to": arr{obj{
					"namespaceSelector": obj{"matchLabels": obj{"kubernetes.io/metadata.name": "kube-system"}},
					"podSelector":       obj{"matchLabels": obj{"k8s-app": "kube-dns"}},
				}},
				"ports": arr{obj{"protocol": "UDP", "port": 53.0}, obj{"protocol": "TCP", "port": 53.0}},
			},
		},
	})
}

// inferenceDeployment is an inference-critical GPU Deployment on on-demand
// nodes.
func inferenceDeployment(ns, name string) Resource {
	rl := func() obj { return obj{"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": "1"} }
	return kube("apps/v1", "Deployment", ns, name, nil, obj{
		"replicas": 2.0,
		"selector": obj{"matchLabels": obj{"app": name}},
		"template": obj{
			"metadata": obj{"labels": obj{"app": name}},
			"spec": obj{
				"priorityClassName": "inference-critical",
				"nodeSelector":      obj{"accelerator": "nvidia", "workload": "inference"},
				"tolerations":       arr{obj{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}},
				"containers": arr{obj{
					"name":      "server",
					"image":     "myacr.azurecr.io/inference-server:1.2.0" + digest,
					"resources": obj{"requests": rl(), "limits": rl()},
				}},
			},
		},
	})
}

// scoringCronJob is a CPU batch scoring CronJob.
func scoringCronJob(ns, name string) Resource {
	return kube("batch/v1", "CronJob", ns, name, nil, obj{
		"schedule":                   "0 2 * * *",
		"successfulJobsHistoryLimit": 3.0,
		"failedJobsHistoryLimit":     1.0,
		"jobTemplate": obj{"spec": obj{
			"backoffLimit": 2.0,
			"template": obj{"spec": obj{
				"restartPolicy": "Never",
				"containers": arr{obj{
					"name":  "score",
					"image": "myacr.azurecr.io/scorer:3.1.0" + digest,
				}},
			}},
		}},
	})
}

// storageClass is an Azure Files premium class with the reclaim policy.
func storageClass(name, reclaim string) Resource {
	r := kube("storage.k8s.io/v1", "StorageClass", "", name, nil, nil)
	r.Inputs["provisioner"] = "file.csi.azure.com"
	r.Inputs["parameters"] = obj{"skuName": "Premium_LRS", "secretNamespace": "kube-system"}
	r.Inputs["reclaimPolicy"] = reclaim
	return r
}

const (
	groupA = "0a0a0a0a-1111-4111-8111-000000000001"
	groupB = "0b0b0b0b-2222-4222-8222-000000000002"
)

// memberRole is the team member Role recording its Entra groups.
func memberRole(ns string, groups ...string) Resource {
	r := kube("rbac.authorization.k8s.io/v1", "Role", ns, "aksml-team-member", nil, nil)
	mapOf(r.Inputs["metadata"])["annotations"] = obj{"aksml.io/entra-groups": strings.Join(groups, ",")}
	return r
}

// memberBinding binds the member Role to groups.
func memberBinding(ns string, groups ...string) Resource {
	r := kube("rbac.authorization.k8s.io/v1", "RoleBinding", ns, "aksml-team-members", nil, nil)
	var subjects arr
	for _, g := range groups {
		subjects = append(subjects, obj{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": g})
	}
	r.Inputs["roleRef"] = obj{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "aksml-team-member"}
	r.Inputs["subjects"] = subjects
	return r
}

// goodStack is a platform that follows every rule, in the given environment.
func goodStack(env string) *Stack {
	provider := resource("pulumi:providers:kubernetes", "k8s", obj{"kubeconfig": "apiVersion: v1\nkind: Config\n"})
	provider.SecretInputs = []string{"kubeconfig"}
	return &Stack{
		Name:        env,
		Environment: env,
		Resources: []Resource{
			agentPool("gpua100"),
			spotPool("gpuspot"),
			managedPoolStack("gpuh100"),
			provider,
			kube("v1", "Namespace", "", "team-a", obj{"aksml.io/team": "team-a"}, nil),
			kube("networking.k8s.io/v1", "NetworkPolicy", "team-a", "aksml-default-deny", nil, obj{
				"podSelector": obj{}, "policyTypes": arr{"Ingress", "Egress"},
			}),
			memberRole("team-a", groupA),
			memberBinding("team-a", groupA),
			kube("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", "", "aksml-tenancy-team-a", nil, obj{"failurePolicy": "Fail"}),
			kube("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", "", "aksml-tenancy-team-a-binding", nil, obj{
				"policyName": "aksml-tenancy-team-a", "validationActions": arr{"Deny"},
				"matchResources": obj{"namespaceSelector": obj{"matchLabels": obj{"aksml.io/team": "team-a"}}},
			}),
			kube("v1", "ResourceQuota", "team-a", "team-quota", nil, obj{"hard": obj{"requests.cpu": "32", "requests.memory": "128Gi", "pods": "50"}}),
			daemonSet("nvidia-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1"),
			daemonSet("dcgm-exporter", "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.9-3.6.1-ubuntu22.04"),
			storageClass("ml-checkpoints-azurefile", "Retain"),
			kube("v1", "PersistentVolumeClaim", "team-a", "model-checkpoints", nil, obj{
				"accessModes":      arr{"ReadWriteMany"},
				"storageClassName": "ml-checkpoints-azurefile",
				"resources":        obj{"requests": obj{"storage": "100Gi"}},
			}),
			kube("kueue.x-k8s.io/v1beta1", "ResourceFlavor", "", "gpu-a100", nil, obj{
				"nodeLabels": obj{"kubernetes.azure.com/agentpool": "gpua100"},
			}),
			kube("kueue.x-k8s.io/v1beta1", "ClusterQueue", "", "team-a-gpu", nil, obj{
				"resourceGroups": arr{obj{
					"coveredResources": arr{"cpu", "memory", "nvidia.com/gpu"},
					"flavors": arr{obj{"name": "gpu-a100", "resources": arr{
						obj{"name": "cpu", "nominalQuota": "32"},
						obj{"name": "memory", "nominalQuota": "128Gi"},
						obj{"name": "nvidia.com/gpu", "nominalQuota": "4"},
					}}},
				}},
			}),
			trainingJob("team-a", "train"),
			pytorchJob("team-a", "ddp"),
			ncclPolicy("team-a", "ddp"),
			inferenceDeployment("team-a", "serve"),
			kube("policy/v1", "PodDisruptionBudget", "team-a", "serve-pdb", nil, obj{
				"maxUnavailable": 1.0,
				"selector":       obj{"matchLabels": obj{"app": "serve"}},
			}),
			scoringCronJob("team-a", "score"),
		},
		Outputs: map[string]Output{
			"kubeconfig":          {Value: "apiVersion: v1\n", Secret: true},
			"clusterName":         {Value: "aks"},
			"registryLoginServer": {Value: "myacr.azurecr.io"},
		},
	}
}

// find returns the resource of s with the given Pulumi name.
func find(s *Stack, name string) *Resource {
	for i := range s.Resources {
		if s.Resources[i].Name == name {
			return &s.Resources[i]
		}
	}
	panic(fmt.Sprintf("no resource %q in the test stack", name))
}

// set sets (or, with value nil, deletes) the input at path below the named
// resource; path elements are map keys (string) or list indices (int).
func set(s *Stack, name string, value any, path ...any) {
	r := find(s, name)
	var cur any = r.Inputs
	for i, step := range path {
		last := i == len(path)-1
		switch key := step.(type) {
		case string:
			m := cur.(obj)
			if last {
				if value == nil {
					delete(m, key)
				} else {
					m[key] = value
				}
				return
			}
			if m[key] == nil {
				m[key] = obj{}
			}
			cur = m[key]
		case int:
			l := cur.(arr)
			if last {
				l[key] = value
				return
			}
			cur = l[key]
		}
	}
}

// add appends resources to the stack.
func add(s *Stack, rs ...Resource) { s.Resources = append(s.Resources, rs...) }
