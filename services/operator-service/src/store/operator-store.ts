import { Schema, type Connection, type Model } from 'mongoose';
import { outboxOnCreate, outboxSchemaFields, withOutbox, type OutboxFields } from '@dfc/kit/broker';
import type { EventEnvelope } from '@dfc/contracts';

/** An operator as stored. `_id` is its public uuid. */
export interface OperatorDocument extends OutboxFields {
  _id: string;
  company_name: string;
  /** As the operator wrote it (trimmed). */
  email: string;
  /** Trimmed and lower-cased: the unique index that decides "already taken", also under races. */
  email_normalised: string;
  password_hash: string;
  phone: string;
  operational_authorisation_number: string | null;
  operator_registration_number: string | null;
  exemption_for_ctr: boolean;
  ctr_exemption_number: string | null;
  timezone: string | null;
  /** Optimistic concurrency: an update applies only to the version it was checked against. */
  version: number;
  created_at: Date;
  updated_at: Date;
}

export type NewOperator = Omit<OperatorDocument, keyof OutboxFields | 'version' | 'created_at' | 'updated_at'>;

/** The contact fields a PATCH may change. */
export type OperatorChanges = Partial<
  Pick<
    OperatorDocument,
    | 'company_name'
    | 'email'
    | 'email_normalised'
    | 'phone'
    | 'operational_authorisation_number'
    | 'operator_registration_number'
    | 'exemption_for_ctr'
    | 'ctr_exemption_number'
    | 'timezone'
  >
>;

const nullableString = { type: String, default: null };

const operatorSchema = new Schema<OperatorDocument>(
  {
    _id: { type: String, required: true },
    company_name: { type: String, required: true },
    email: { type: String, required: true },
    email_normalised: { type: String, required: true },
    password_hash: { type: String, required: true },
    phone: { type: String, required: true },
    operational_authorisation_number: nullableString,
    operator_registration_number: nullableString,
    exemption_for_ctr: { type: Boolean, default: false },
    ctr_exemption_number: nullableString,
    timezone: nullableString,
    version: { type: Number, default: 1 },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    ...outboxSchemaFields,
  },
  { collection: 'operators', versionKey: false, timestamps: false },
);
operatorSchema.index({ email_normalised: 1 }, { unique: true, name: 'email_normalised_unique' });

export class OperatorStore {
  readonly model: Model<OperatorDocument>;

  constructor(connection: Connection) {
    this.model = (connection.models['Operator'] as Model<OperatorDocument> | undefined) ?? connection.model<OperatorDocument>('Operator', operatorSchema);
  }

  /** Inserts the operator with its events; a taken email surfaces as the duplicate-key error. */
  async insert(operator: NewOperator, events: EventEnvelope[], now: Date): Promise<OperatorDocument> {
    const document = { ...operator, version: 1, created_at: now, updated_at: now, ...outboxOnCreate(events) };
    await this.model.create(document);
    return document;
  }

  findByUuid(uuid: string): Promise<OperatorDocument | null> {
    return this.model.findById(uuid).lean<OperatorDocument>().exec();
  }

  findByNormalisedEmail(emailNormalised: string): Promise<OperatorDocument | null> {
    return this.model.findOne({ email_normalised: emailNormalised }).lean<OperatorDocument>().exec();
  }

  /** Whether another operator than `exceptUuid` holds this normalised email. */
  async emailTaken(emailNormalised: string, exceptUuid?: string): Promise<boolean> {
    const filter = exceptUuid ? { email_normalised: emailNormalised, _id: { $ne: exceptUuid } } : { email_normalised: emailNormalised };
    return (await this.model.exists(filter)) !== null;
  }

  /** Applies the changes if the operator is still at `version`; null when someone else changed it first. */
  update(uuid: string, version: number, changes: OperatorChanges, events: EventEnvelope[], now: Date): Promise<OperatorDocument | null> {
    return this.model
      .findOneAndUpdate(
        { _id: uuid, version },
        withOutbox({ $set: { ...changes, updated_at: now }, $inc: { version: 1 } }, events),
        { returnDocument: 'after' },
      )
      .lean<OperatorDocument>()
      .exec();
  }
}
