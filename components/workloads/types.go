package workloads

// Pulumi type tokens of the components this package registers.
const (
	// CheckpointedJobType is the type token of NewCheckpointedJob.
	CheckpointedJobType = "aksml:workloads:CheckpointedJob"
	// IndexedJobType is the type token of NewIndexedJob.
	IndexedJobType = "aksml:workloads:IndexedJob"
	// MIGTrialType is the type token of NewMIGTrial.
	MIGTrialType = "aksml:workloads:MIGTrial"
	// PyTorchJobType is the type token of NewPyTorchJob.
	PyTorchJobType = "aksml:workloads:PyTorchJob"
	// TFJobType is the type token of NewTFJob.
	TFJobType = "aksml:workloads:TFJob"
	// ScheduledScoringType is the type token of NewScheduledScoring.
	ScheduledScoringType = "aksml:workloads:ScheduledScoring"
	// TrainingOperatorType is the type token of NewTrainingOperator.
	TrainingOperatorType = "aksml:workloads:TrainingOperator"
	// KAITOType is the type token of NewKAITO.
	KAITOType = "aksml:workloads:KAITO"
	// FineTuningWorkspaceType is the type token of NewFineTuningWorkspace.
	FineTuningWorkspaceType = "aksml:workloads:FineTuningWorkspace"
	// InferenceWorkspaceType is the type token of NewInferenceWorkspace.
	InferenceWorkspaceType = "aksml:workloads:InferenceWorkspace"
	// InferenceServerType is the type token of NewInferenceServer.
	InferenceServerType = "aksml:workloads:InferenceServer"
)
