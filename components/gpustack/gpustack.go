package gpustack

import (
	"errors"

	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	appsv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apps/v1"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// GPUStackArgs configures NewGPUStack.
type GPUStackArgs struct {
	// Provider is the Kubernetes provider; nil uses the ambient default.
	Provider *kubernetes.Provider
	// Resolved is the GPU software configuration (`aksml:gpuStack`) with
	// the stack's GPU pools (`aksml:gpuPools`), resolved once by Resolve,
	// which is given the config keys they were read from for its errors.
	// Required. Its Problems are reported here, before anything is
	// registered; nothing is validated again. Only DriverOnly pools get the
	// device plugin and DCGM exporter; MIG pools not Managed get their
	// layout in mig-parted-config; Managed pools get nothing.
	Resolved *Resolved
}

// GPUStack is the GPU software aksml installs on the cluster for pools AKS
// does not manage (C4): the NVIDIA device plugin and DCGM exporter on
// DriverOnly pools and the mig-parted-config of MIG pools.
type GPUStack struct {
	pulumi.ResourceState

	// DevicePluginPools are the pools the device plugin runs on, sorted;
	// empty when none needs it (then no device plugin is installed).
	DevicePluginPools []string `pulumi:"devicePluginPools"`
	// DCGMExporterPools are the pools the DCGM exporter runs on, sorted;
	// empty when none needs it or Spec.DCGMExporter is false.
	DCGMExporterPools []string `pulumi:"dcgmExporterPools"`
	// MIGLayouts are the layouts in mig-parted-config besides all-disabled,
	// sorted; empty when no ConfigMap is installed.
	MIGLayouts []string `pulumi:"migLayouts"`
	// MIGManagerPools are the pools the MIG Manager runs on (DriverOnly
	// pools with MIG), sorted; empty when it is not installed.
	MIGManagerPools []string `pulumi:"migManagerPools"`
	// Namespace is the namespace of the DCGM exporter and mig-parted-config
	// (for the observability PodMonitor), "" when neither is installed.
	Namespace pulumi.StringOutput `pulumi:"namespace"`

	resources []pulumi.Resource
}

// Resources returns the resources the GPUStack registered. Give these, not
// the component, to pulumi.DependsOn (see queues.Queues.Resources for why).
func (c *GPUStack) Resources() []pulumi.Resource { return c.resources }

// keep records a registered child for Resources.
func (c *GPUStack) keep(r pulumi.Resource) { c.resources = append(c.resources, r) }

// NewGPUStack installs the GPU software the pools need and nothing else: a
// stack whose pools are all Managed gets no Kubernetes resource at all.
func NewGPUStack(ctx *pulumi.Context, name string, args *GPUStackArgs, opts ...pulumi.ResourceOption) (*GPUStack, error) {
	if args == nil {
		return nil, errors.New("gpustack: NewGPUStack needs args")
	}
	r := args.Resolved
	if r == nil {
		return nil, errors.New("gpustack: GPUStackArgs.Resolved is required; resolve the spec and the pools with gpustack.Resolve")
	}
	if err := r.Problems.ToAggregate(); err != nil {
		return nil, err
	}
	spec, p := r.Spec, r.plan
	if args.Provider != nil {
		opts = append(opts, pulumi.Providers(args.Provider))
	}
	c := &GPUStack{DevicePluginPools: r.DevicePluginPools(), DCGMExporterPools: r.DCGMExporterPools(), MIGManagerPools: p.migManagerPools}
	for _, l := range p.migLayouts {
		c.MIGLayouts = append(c.MIGLayouts, l.name)
	}
	if err := ctx.RegisterComponentResource(ComponentType, name, c, opts...); err != nil {
		return nil, err
	}
	c.Namespace = pulumi.String("").ToStringOutput()

	if len(c.DevicePluginPools) > 0 {
		if err := c.installDevicePlugin(ctx, name, spec, p); err != nil {
			return nil, err
		}
	}
	if len(c.DCGMExporterPools) > 0 || len(p.migLayouts) > 0 {
		ns, err := c.namespace(ctx, name, spec)
		if err != nil {
			return nil, err
		}
		c.Namespace = ns
		if len(c.DCGMExporterPools) > 0 {
			ds, err := appsv1.NewDaemonSet(ctx, name+"-dcgm-exporter", dcgmExporterArgs(ns, spec.DCGMExporterImage, c.DCGMExporterPools, len(p.migManagerPools) > 0), pulumi.Parent(c))
			if err != nil {
				return nil, err
			}
			svc, err := corev1.NewService(ctx, name+"-dcgm-exporter", dcgmServiceArgs(ns), pulumi.Parent(c))
			if err != nil {
				return nil, err
			}
			c.keep(ds)
			c.keep(svc)
		}
		if len(p.migLayouts) > 0 {
			cm, err := corev1.NewConfigMap(ctx, name+"-mig-config", migConfigMapArgs(ns, p.migLayouts), pulumi.Parent(c))
			if err != nil {
				return nil, err
			}
			c.keep(cm)
			if len(p.migManagerPools) > 0 {
				if err := c.installMIGManager(ctx, name, ns, spec, p, cm); err != nil {
					return nil, err
				}
			}
		}
	}

	if err := ctx.RegisterResourceOutputs(c, pulumi.Map{
		"devicePluginPools": pulumi.ToStringArray(c.DevicePluginPools),
		"dcgmExporterPools": pulumi.ToStringArray(c.DCGMExporterPools),
		"migLayouts":        pulumi.ToStringArray(c.MIGLayouts),
		"migManagerPools":   pulumi.ToStringArray(c.MIGManagerPools),
		"namespace":         c.Namespace,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// installDevicePlugin registers the device plugin DaemonSet and, with
// time-slicing, its config ConfigMap.
func (c *GPUStack) installDevicePlugin(ctx *pulumi.Context, name string, spec Spec, p plan) error {
	ns := pulumi.String(spec.DevicePluginNamespace)
	opts := []pulumi.ResourceOption{pulumi.Parent(c)}
	var config string
	if spec.TimeSlicing != nil {
		config = devicePluginConfig(spec.TimeSlicing.Replicas)
		cm, err := corev1.NewConfigMap(ctx, name+"-device-plugin-config", devicePluginConfigMapArgs(ns, config), pulumi.Parent(c))
		if err != nil {
			return err
		}
		c.keep(cm)
		opts = append(opts, pulumi.DependsOn([]pulumi.Resource{cm}))
	}
	ds, err := appsv1.NewDaemonSet(ctx, name+"-device-plugin",
		devicePluginArgs(ns, spec.DevicePluginImage, p.devicePluginPools, p.migStrategy, config, len(p.migManagerPools) > 0), opts...)
	if err == nil {
		c.keep(ds)
	}
	return err
}

// namespace creates Spec.Namespace when asked and returns its name as an
// output that the resources inside it depend on.
func (c *GPUStack) namespace(ctx *pulumi.Context, name string, spec Spec) (pulumi.StringOutput, error) {
	if !*spec.CreateNamespace {
		return pulumi.String(spec.Namespace).ToStringOutput(), nil
	}
	ns, err := corev1.NewNamespace(ctx, name+"-namespace", namespaceArgs(spec.Namespace), pulumi.Parent(c))
	if err != nil {
		return pulumi.StringOutput{}, err
	}
	c.keep(ns)
	return ns.Metadata.Name().Elem(), nil
}
