/** Removes what other services hold for a user (the challenge service's challenges, the ceremony service's passkeys). */
export interface UserCleanup {
  /** Asks the services that keep data of a user (challenges, passkeys) to drop it. */
  deleteUserData(projectId: string, userId: string): Promise<void>;
}
