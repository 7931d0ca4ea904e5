package queues

// ComponentType is the Pulumi type token of the Queues component.
const ComponentType = "aksml:queues:Queues"
