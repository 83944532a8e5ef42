import type { Model, mongo } from 'mongoose';

/**
 * The driver's collection behind a model, typed with the model's own
 * documents (string ids). For the hot paths that write whole documents or
 * typed updates: the driver takes them as they are, where mongoose would
 * cast, validate and hydrate them again on every call, and its query objects
 * are most of a small write's CPU. Anything that needs
 * the schema's defaults or casting goes through the model.
 */
export function driverCollection<D extends { _id: string }>(model: Model<D>): mongo.Collection<D> {
  // mongoose types its collection with ObjectId ids; ours are strings, as the model's type says.
  return model.collection as unknown as mongo.Collection<D>;
}
