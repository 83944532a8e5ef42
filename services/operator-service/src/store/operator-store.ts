import { Schema, type Connection, type Model } from 'mongoose';
import { AggregateStore, outboxSchemaFields, WITHOUT_OUTBOX, type Aggregate, type Decide, type OutboxRelay } from '@dfc/kit/outbox';
import { isDuplicateKey } from '@dfc/kit/db';
import type { EventEnvelope } from '@dfc/contracts';
import { emailTakenError } from '../domain/operator-rules.js';

/** An operator as stored. `_id` is its public uuid. */
export interface OperatorDocument extends Aggregate {
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
  created_at: Date;
  updated_at: Date;
}

export type NewOperator = Omit<OperatorDocument, 'version'>;

const nullableString = { type: String, default: null };

const operatorSchema = new Schema<OperatorDocument>(
  {
    _id: { type: String, required: true },
    version: { type: Number, required: true },
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
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    ...outboxSchemaFields,
  },
  { collection: 'operators', versionKey: false, timestamps: false },
);
// Basic login and the "already taken" check; unique, so it also decides between racing registrations.
operatorSchema.index({ email_normalised: 1 }, { unique: true, name: 'email_normalised_unique' });

/**
 * Operators, changed only through the kit's write path. A write that the
 * email's unique index refuses is the domain's "already taken", whoever
 * checked first.
 */
export function operatorModel(connection: Connection): Model<OperatorDocument> {
  return (connection.models['Operator'] as Model<OperatorDocument> | undefined) ?? connection.model<OperatorDocument>('Operator', operatorSchema);
}

export class OperatorStore {
  private readonly aggregates: AggregateStore<OperatorDocument>;

  constructor(connection: Connection, relay: OutboxRelay) {
    const model = operatorModel(connection);
    this.aggregates = new AggregateStore(model, relay, {
      conflictMessage: 'The operator was changed by another request at the same time. Please retry.',
    });
  }

  /** Inserts the operator with the events of its registration. */
  insert(operator: NewOperator, events: EventEnvelope[]): Promise<OperatorDocument> {
    return refuseTakenEmail(this.aggregates.insert(operator, events));
  }

  /** Applies what `decide` makes of the current operator in one conditional write (404 when there is none). */
  change(uuid: string, decide: Decide<OperatorDocument>): Promise<OperatorDocument> {
    return refuseTakenEmail(this.aggregates.change(uuid, decide));
  }

  findByUuid(uuid: string): Promise<OperatorDocument | null> {
    return this.aggregates.find(uuid);
  }

  findByNormalisedEmail(emailNormalised: string): Promise<OperatorDocument | null> {
    return this.aggregates.model.findOne({ email_normalised: emailNormalised }, WITHOUT_OUTBOX).lean<OperatorDocument>().exec();
  }

  /** Whether an operator other than `exceptUuid` holds this normalised email. */
  async emailTaken(emailNormalised: string, exceptUuid?: string): Promise<boolean> {
    const holder = await this.aggregates.model.findOne({ email_normalised: emailNormalised }, { _id: 1 }).lean().exec();
    return holder !== null && holder._id !== exceptUuid;
  }
}

async function refuseTakenEmail<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    // The only unique keys are the email and a fresh random uuid, so a duplicate is the email.
    if (isDuplicateKey(error)) throw emailTakenError();
    throw error;
  }
}
