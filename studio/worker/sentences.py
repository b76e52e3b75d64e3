"""What the worker says when a job cannot go on (one sentence each, for the UI)."""

INTERNAL_ERROR = ("An unexpected internal error stopped this job; the log file in the data "
                  "folder has the details.")
NOT_LOADED = "The model is not loaded yet; wait for it or pick a model in Settings."
NOT_A_MODEL_FOLDER = ("{folder} does not hold an OmniVoice model; choose the folder with "
                      "config.json, model.safetensors and audio_tokenizer/ in it.")
TAKES_NOT_SAVED = ("The takes could not be saved to the library; the log file in the data "
                   "folder has the details.")

# Render until one passes: the stage before each take's decoding; the form keeps which try
# it is on beside the steps that follow (studio.views.progress_text.attempt_of).
ATTEMPT_STAGE = "Rendering take {n} of at most {limit} …"
