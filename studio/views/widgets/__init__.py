"""Small reusable widgets: language picker, level meter, waveform, collapsible section."""
