package gpustack

// ComponentType is the Pulumi type token of the GPUStack component.
const ComponentType = "aksml:gpustack:GPUStack"
