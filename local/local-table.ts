/** The ledger table `npm start` creates on its local DynamoDB, and `notifier ledger --local` reads. */
export const LOCAL_TABLE_NAME = 'notifier-ledger-local';
