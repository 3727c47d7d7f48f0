// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title Test USDC of the local stack
/// @notice Behaves like Circle's USDC where the marketplace depends on it: 6 decimals, name
/// "USD Coin", EIP-2612 permit under the EIP-712 domain version "2" (with a `version()` view,
/// as FiatToken has), and a blacklist that makes transfers from or to a listed address revert.
/// Unlike USDC, anyone may mint: it is play money for local development and tests only.
/// @dev OpenZeppelin's ERC20Permit fixes the EIP-712 version at "1"; real USDC signs with "2",
/// so permit is written out here to let the same client code sign for both.
contract TestUSDC is ERC20, IERC20Permit, EIP712, Nonces, Ownable {
    bytes32 private constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    mapping(address account => bool) public isBlacklisted;

    event Blacklisted(address indexed account, bool blacklisted);

    error AccountBlacklisted(address account);
    error ERC2612ExpiredSignature(uint256 deadline);
    error ERC2612InvalidSigner(address signer, address owner);

    constructor() ERC20("USD Coin", "USDC") EIP712("USD Coin", "2") Ownable(msg.sender) {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice EIP-712 domain version, read by permit signers (FiatToken exposes the same view).
    function version() external pure returns (string memory) {
        return "2";
    }

    /// @notice Open mint: the local stack hands out demo dollars freely.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    /// @notice The blacklist switch tests use to imitate Circle freezing an address.
    function setBlacklisted(address account, bool blacklisted) external onlyOwner {
        isBlacklisted[account] = blacklisted;
        emit Blacklisted(account, blacklisted);
    }

    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        if (block.timestamp > deadline) revert ERC2612ExpiredSignature(deadline);
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, _useNonce(owner), deadline));
        address signer = ECDSA.recover(_hashTypedDataV4(structHash), v, r, s);
        if (signer != owner) revert ERC2612InvalidSigner(signer, owner);
        _approve(owner, spender, value);
    }

    function nonces(address owner) public view override(IERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    function _update(address from, address to, uint256 value) internal override {
        if (isBlacklisted[from]) revert AccountBlacklisted(from);
        if (isBlacklisted[to]) revert AccountBlacklisted(to);
        super._update(from, to, value);
    }
}
