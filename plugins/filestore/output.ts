// Wire types of the filestore family (boxo filestore.ListRes, kubo RefWrapper).

/** filestore.ListRes: Key is a go-cid JSON link ({"/": cid}), null when undefined */
export interface FilestoreListOutput {
  Status: number
  ErrorMsg: string
  Key: { '/': string } | null
  FilePath: string
  Offset: number
  Size: number
}

/** RefWrapper */
export interface FilestoreDupsOutput {
  Ref: string
  Err: string
}
