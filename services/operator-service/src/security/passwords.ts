import argon2 from 'argon2';

export interface Argon2Parameters {
  memoryCostKib: number;
  timeCost: number;
  parallelism: number;
}

/** OWASP's argon2id recommendation; see config.ts for the reasoning. */
export const OWASP_ARGON2: Argon2Parameters = { memoryCostKib: 47_104, timeCost: 1, parallelism: 1 };

/**
 * argon2id hashing of operator passwords. The hash encodes its own
 * parameters, so raising them later keeps old hashes verifiable.
 */
export class PasswordHasher {
  /** Verified against when the email is unknown, so both cases take as long. */
  private decoy: Promise<string> | undefined;

  constructor(private readonly parameters: Argon2Parameters = OWASP_ARGON2) {}

  hash(password: string): Promise<string> {
    return argon2.hash(password, {
      type: argon2.argon2id,
      memoryCost: this.parameters.memoryCostKib,
      timeCost: this.parameters.timeCost,
      parallelism: this.parameters.parallelism,
    });
  }

  async verify(hash: string, password: string): Promise<boolean> {
    try {
      return await argon2.verify(hash, password);
    } catch {
      // A malformed stored hash must read as "wrong password", never as a 500 that reveals the account.
      return false;
    }
  }

  /**
   * Whether `hash` was made with other parameters than this hasher's (an older default, or configured ones
   * raised since): a login that proves the password then stores a new hash, so old hashes move to the
   * current parameters without a reset.
   */
  needsRehash(hash: string): boolean {
    try {
      return argon2.needsRehash(hash, {
        memoryCost: this.parameters.memoryCostKib,
        timeCost: this.parameters.timeCost,
        parallelism: this.parameters.parallelism,
      });
    } catch {
      return false;
    }
  }

  /** Spends the time of a real verification and fails: for unknown emails (no user enumeration by timing). */
  async verifyNothing(password: string): Promise<false> {
    this.decoy ??= this.hash('decoy password, never valid');
    await this.verify(await this.decoy, password);
    return false;
  }
}
