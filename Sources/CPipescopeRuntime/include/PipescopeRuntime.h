#ifndef PIPESCOPE_RUNTIME_H
#define PIPESCOPE_RUNTIME_H

#include <stdbool.h>

// Four entry points of the Swift runtime (libswiftCore exports them; see the runtime's
// HeapObject.h), declared here so Swift calls them with the C calling convention they
// have. The tap uses them to hold a subscription object by its unowned count, not by a
// weak reference: see PipescopeTap's SubscriptionHold.
//
// Native Swift objects only (every class on Linux).

/// Adds one to the object's unowned count: its memory stays allocated (its address not
/// reused) until the matching release, even after its deinit. Returns the object.
void *swift_unownedRetain(void *object);

/// Takes one from the unowned count; frees the object's memory if that was the last
/// count and the object has been deinitialised (no deinit runs here).
void swift_unownedRelease(void *object);

/// Adds one to the strong count unless the object has begun to deinit: the object if
/// it did, null if not.
void *swift_tryRetain(void *object);

/// Whether the object has begun to deinit (its strong count reached zero).
bool swift_isDeallocating(void *object);

#endif
