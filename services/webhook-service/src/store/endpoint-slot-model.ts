import { Schema, type Connection, type Model } from 'mongoose';

/**
 * One of an endpoint's request slots while a replica holds it: the document's
 * existence is the hold. Its `_id` names the endpoint and the slot's number,
 * so a unique insert decides between replicas taking the same slot.
 */
export interface EndpointSlotLease {
  /** `<endpoint id>/<slot number>`. */
  _id: string;
  endpoint_id: string;
  slot: number;
  /** Random per hold: a release or renewal touches only the hold it made. */
  holder: string;
  /** After this the holder is taken to be gone, and another replica may take the slot over. */
  expires_at: Date;
}

const slotSchema = new Schema<EndpointSlotLease>(
  {
    _id: { type: String, required: true },
    endpoint_id: { type: String, required: true },
    slot: { type: Number, required: true },
    holder: { type: String, required: true },
    expires_at: { type: Date, required: true },
  },
  { collection: 'webhook_endpoint_slots', versionKey: false },
);
// The slots of one endpoint held now, read when the one a replica tried first is taken.
slotSchema.index({ endpoint_id: 1 });

export type EndpointSlotModel = Model<EndpointSlotLease>;

export function endpointSlotModel(connection: Connection): EndpointSlotModel {
  return connection.model<EndpointSlotLease>('EndpointSlot', slotSchema);
}
