/* pin.h - pin the calling thread (and the threads it starts later) to one CPU */
#ifndef PIN_H
#define PIN_H

/* pin_to_cpu - sched_setaffinity to {cpu}: 0, or -errno (-EINVAL for a CPU out of range) */
int pin_to_cpu(int cpu);

#endif
