package queues

import "github.com/aksml/aksml/components/vocab"

// ComponentType is the Pulumi type token of the Queues component.
const ComponentType = vocab.QueuesComponentType
